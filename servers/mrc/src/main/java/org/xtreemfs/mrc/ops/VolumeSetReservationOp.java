package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.VolumeSetReservationRequest;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_VOLUME_SET_RESERVATION: changes a volume's reservation online (owner or root). The new figures are
 * re-admitted on the OSDs the volume is placed on, against every OSD's latest profile from the DIR; the
 * volume stays usable throughout, and a change that does not fit fails with ENOSPC and the reason.
 */
public final class VolumeSetReservationOp extends MetadataOp<VolumeSetReservationRequest> {
    public VolumeSetReservationOp(OpServices services) {
        super(services, "MRC_VOLUME_SET_RESERVATION", VolumeSetReservationRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeSetReservationRequest request) {
        return withOsdReports(context);
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, VolumeSetReservationRequest request)
            throws Exception {
        return described(services.namespace().changeReservation(context, request.getVolumeName(),
                request.getReservation()), context);
    }
}
