package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_VOLUME_CREATE: validates the volume, admits its reservation (if any) against the OSDs the DIR reports
 * and stores both in one batch, then registers it at the DIR. A refused reservation fails with ENOSPC and the
 * scheduler's reason. If the DIR does not
 * answer, the volume exists at the MRC and the call fails saying so; the MRC registers all its volumes
 * again when it starts.
 */
public final class VolumeCreateOp extends MetadataOp<VolumeCreateRequest> {
    public VolumeCreateOp(OpServices services) {
        super(services, "MRC_VOLUME_CREATE", VolumeCreateRequest.parser());
    }

    /** A volume with a reservation is admitted against every OSD the DIR knows, fetched fresh. */
    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeCreateRequest request) {
        OperationContext withId = context.withGeneratedId(services.volumeIds().get());
        return request.getVolume().getReservation().getType() == QosType.QOS_TYPE_UNSPECIFIED
                ? CompletableFuture.completedFuture(withId) : withOsdReports(withId);
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, VolumeCreateRequest request)
            throws Exception {
        return described(services.namespace().createVolume(context, request.getVolume(), context.generatedId()),
                context);
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
