package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.QosStatusRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.registry.VolumeAttainmentSum;

/**
 * MRC_QOS_STATUS: the reservation ledger as the DIR's latest report shows it: each OSD with its profile,
 * what is reserved on it, whether it is available and any warning, and per type the largest reservation
 * admitted now; and each volume's attainment summed over its OSDs from their latest heartbeats (all volumes,
 * or the one the request names). Read-only; it runs on the metadata stage so it sees whole decisions only.
 */
public final class QosStatusOp extends MetadataOp<QosStatusRequest, QosStatus> {
    public QosStatusOp(OpServices services) {
        super(services, "MRC_QOS_STATUS", QosStatusRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, QosStatusRequest request) {
        return withOsdReports(context);
    }

    @Override
    protected QosStatus apply(OperationContext context, QosStatusRequest request) throws RpcException {
        List<Volume> volumes = request.getVolumeName().isEmpty() ? services.namespace().listVolumes()
                : List.of(services.namespace().volume(request.getVolumeName()));
        return services.ledger().status(context.osdReports()).toBuilder()
                .addAllVolumes(VolumeAttainmentSum.sum(context.osdReports(), volumes, services.ledger()::stripeOsds))
                .build();
    }

    @Override
    protected MessageLite answer(RpcCall call, QosStatus status) {
        return status;
    }
}
