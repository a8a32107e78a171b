package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_VOLUME_CREATE: validates and stores the volume, then registers it at the DIR. If the DIR does not
 * answer, the volume exists at the MRC and the call fails saying so; the MRC registers all its volumes
 * again when it starts.
 */
public final class VolumeCreateOp extends MetadataOp<VolumeCreateRequest> {
    public VolumeCreateOp(OpServices services) {
        super(services, "MRC_VOLUME_CREATE", VolumeCreateRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeCreateRequest request) {
        return CompletableFuture.completedFuture(context.withGeneratedId(services.volumeIds().get()));
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, VolumeCreateRequest request)
            throws Exception {
        return services.namespace().createVolume(context, request.getVolume(), context.generatedId());
    }

    @Override
    protected CompletableFuture<MessageLite> afterCommit(VolumeCreateRequest request, MessageLite result) {
        Volume volume = (Volume) result;
        return services.dir().registerVolume(volume).handle((ignored, error) -> {
            if (error != null) {
                throw new java.util.concurrent.CompletionException(RpcException.internal("volume '"
                        + volume.getName() + "' (" + volume.getId() + ") was created at the MRC but the DIR did not"
                        + " register it: " + toRpcException(error).getMessage()
                        + "; the MRC registers it again when it restarts"));
            }
            return result;
        });
    }
}
