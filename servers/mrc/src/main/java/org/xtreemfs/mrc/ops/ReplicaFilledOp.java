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
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_REPLICA_FILLED: a filling replica's OSDs answered OSD_FILL_REPLICA, so it holds everything its chain holds;
 * its filling mark is cleared under a new XLoc version (from then on it is an ordinary member: it may become the
 * tail after a re-formation and serve reads). Repeating it for a replica already filled changes nothing.
 */
public final class ReplicaFilledOp extends MetadataOp<ReplicaFilledRequest, ReplicaChanges.Result> {
    public ReplicaFilledOp(OpServices services) {
        super(services, "MRC_REPLICA_FILLED", ReplicaFilledRequest.parser(), ResultCodec.REPLICA_CHANGE);
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
        InodeRecord updated = markFilled(namespace, named.transaction(), volumeId, named.record(), named.index());
        return new ReplicaChanges.Result(volumeId, updated, ledger.share(volumeId), Optional.empty());
    }

    /**
     * The same for the MRC's own replacement of a dead member (ReplicaFailedOp), which names the file by its inode
     * (there is no caller whose path and permissions to check): the file's XLoc afterwards, unchanged when the
     * replica on {@code osdUuids} is gone from the chain meanwhile (removed, or itself replaced) or filled already.
     */
    public static XLocSet replacementFilled(Namespace namespace, String volumeId, long inode, List<String> osdUuids)
            throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        XLocSet xlocs = record.xlocs();
        for (int index = 0; index < xlocs.getReplicasCount(); index++) {
            if (xlocs.getReplicas(index).getOsdUuidsList().equals(osdUuids)) {
                return markFilled(namespace, transaction, volumeId, record, index).xlocs();
            }
        }
        return xlocs;
    }

    /** The rule: a filling replica's mark goes under the next version; a filled one stays as it is. */
    private static InodeRecord markFilled(Namespace namespace, Transaction transaction, String volumeId,
            InodeRecord record, int index) {
        XLocSet xlocs = record.xlocs();
        if (!xlocs.getReplicas(index).getFilling()) {
            return record;
        }
        XLocSet.Builder changed = xlocs.toBuilder();
        changed.setReplicas(index, xlocs.getReplicas(index).toBuilder().setFilling(false));
        return ReplicaChanges.commit(namespace, transaction, volumeId, record, changed,
                namespace.replicaTarget(transaction, volumeId, record.inode()));
    }
}
