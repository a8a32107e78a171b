package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.RemoveReplicaRequest;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_REMOVE_REPLICA: takes one replica out of a file's chains under a new XLoc version (lowering a file's
 * replication, `xtfsutil --set-replication`). Every filled member holds every acknowledged update, so any one may go;
 * the last replica may not. The answer also carries the removed replica as the sole replica of an XLoc of the new
 * version: the caller sends OSD_UNLINK with it to the removed OSDs, which then delete their copy like a deleted
 * file's. Removing a dead member after a failure is the MRC's recovery (its own operation); this one is for a
 * caller who chose the replica.
 */
public final class RemoveReplicaOp extends MetadataOp<RemoveReplicaRequest, ReplicaChanges.Result> {
    public RemoveReplicaOp(OpServices services) {
        super(services, "MRC_REMOVE_REPLICA", RemoveReplicaRequest.parser(), ResultCodec.REPLICA_CHANGE);
    }

    @Override
    protected ReplicaChanges.Result apply(OperationContext context, RemoveReplicaRequest request)
            throws RpcException {
        return removeReplica(services.namespace(), services.ledger(), context, request.getVolumeName(),
                request.getPath(), request.getOsdUuidsList());
    }

    @Override
    protected MessageLite answer(RpcCall call, ReplicaChanges.Result result) {
        return ReplicaChanges.answer(services, call, result);
    }

    /** Removes the replica on {@code osdUuids}; EINVAL naming them when the file has none, or it is the last one. */
    public static ReplicaChanges.Result removeReplica(Namespace namespace, ReservationLedger ledger,
            OperationContext context, String volumeName, String path, List<String> osdUuids) throws RpcException {
        ReplicaChanges.NamedReplica named = ReplicaChanges.namedReplica(namespace, context, volumeName, path, osdUuids,
                "remove a replica of");
        XLocSet xlocs = named.record().xlocs();
        int index = named.index();
        if (xlocs.getReplicasCount() == 1) {
            throw RpcException.errno(Errno.EINVAL, "cannot remove the only replica of '" + path + "'; delete the"
                    + " file instead");
        }
        // A filling replica left as the tail keeps its place before the new tail; with only filling replicas left
        // nothing would hold the old data: refused (ReplicaChanges.withoutReplica).
        XLocSet.Builder changed = ReplicaChanges.withoutReplica(xlocs, index).orElseThrow(() -> RpcException.errno(
                Errno.EINVAL, "cannot remove replica " + osdUuids + " of '" + path + "': the replicas left are"
                        + " still being filled"));
        // The caller chose this chain's count: a count a failure left it short of is no longer restored by the MRC.
        InodeRecord updated = ReplicaChanges.commit(namespace, named.transaction(), named.volume(), named.record(),
                changed, 0);
        XLocSet removed = XLocSet.newBuilder().setVersion(updated.xlocs().getVersion())
                .addReplicas(xlocs.getReplicas(index).toBuilder().setFilling(false)).build();
        String volumeId = named.volume().getId();
        return new ReplicaChanges.Result(volumeId, updated, ledger.share(volumeId), Optional.of(removed));
    }
}
