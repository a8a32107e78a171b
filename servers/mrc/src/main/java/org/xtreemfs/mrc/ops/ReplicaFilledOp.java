package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaFilledRequest;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_REPLICA_FILLED: a filling replica's OSDs answered OSD_FILL_REPLICA, so it holds everything its chain holds;
 * its filling mark is cleared under a new XLoc version (from then on it is an ordinary member: it may become the
 * tail after a re-formation and serve reads). Repeating it for a replica already filled changes nothing.
 */
public final class ReplicaFilledOp extends MetadataOp<ReplicaFilledRequest, ReplicaChanges.Result> {
    public ReplicaFilledOp(OpServices services) {
        super(services, "MRC_REPLICA_FILLED", ReplicaFilledRequest.parser());
    }

    @Override
    protected ReplicaChanges.Result apply(OperationContext context, ReplicaFilledRequest request)
            throws RpcException {
        return replicaFilled(services.namespace(), services.ledger(), context, request.getVolumeName(),
                request.getPath(), request.getOsdUuidsList());
    }

    @Override
    protected MessageLite answer(RpcCall call, ReplicaChanges.Result result) {
        return ReplicaChanges.answer(services, call, result);
    }

    /** Clears the filling mark of the replica on {@code osdUuids}; EINVAL naming them when the file has none. */
    public static ReplicaChanges.Result replicaFilled(Namespace namespace, ReservationLedger ledger,
            OperationContext context, String volumeName, String path, List<String> osdUuids) throws RpcException {
        ReplicaChanges.NamedReplica named = ReplicaChanges.namedReplica(namespace, context, volumeName, path, osdUuids,
                "mark a replica filled of");
        String volumeId = named.volume().getId();
        XLocSet xlocs = named.record().xlocs();
        if (!xlocs.getReplicas(named.index()).getFilling()) {
            return new ReplicaChanges.Result(volumeId, named.record(), ledger.share(volumeId), Optional.empty());
        }
        XLocSet.Builder changed = xlocs.toBuilder();
        changed.setReplicas(named.index(), xlocs.getReplicas(named.index()).toBuilder().setFilling(false));
        InodeRecord updated = ReplicaChanges.commit(namespace, named.transaction(), named.volume(), named.record(),
                changed);
        return new ReplicaChanges.Result(volumeId, updated, ledger.share(volumeId), Optional.empty());
    }
}
