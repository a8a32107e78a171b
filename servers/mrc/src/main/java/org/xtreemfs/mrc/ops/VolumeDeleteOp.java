package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_VOLUME_DELETE: removes the volume's metadata (owner or root), then deregisters it at the DIR. The
 * files' objects stay on the OSDs (not yet garbage-collected, see README).
 */
public final class VolumeDeleteOp extends MetadataOp<VolumeNameRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(VolumeDeleteOp.class);

    public VolumeDeleteOp(OpServices services) {
        super(services, "MRC_VOLUME_DELETE", VolumeNameRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, VolumeNameRequest request) throws Exception {
        services.namespace().deleteVolume(context, request.getVolumeName());
        return Empty.getDefaultInstance();
    }

    @Override
    protected CompletableFuture<MessageLite> afterCommit(VolumeNameRequest request, MessageLite result) {
        return services.dir().deregisterVolume(request.getVolumeName()).handle((ignored, error) -> {
            if (error != null) {
                LOG.warn("volume '{}' deleted but the DIR did not deregister it: {}", request.getVolumeName(),
                        error.toString());
            }
            return result;
        });
    }
}
