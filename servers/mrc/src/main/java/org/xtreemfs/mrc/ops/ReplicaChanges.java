package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaChangeResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The rules the three replica operations of one file share (AddReplicaOp, ReplicaFilledOp, RemoveReplicaOp): which
 * file and who may change it, how a changed chain is committed (a new XLoc version, so OSDs fence off updates
 * carrying the old chain; see osd.proto XLocSet), and the answer (the new XLoc with a read-write XCap).
 *
 * <p>Rules: the caller owns the file or is root; the file is a regular file with a layout (a reserved volume's new
 * copies go only on OSDs holding its share: ReservedReplicas); a chain keeps between {@link
 * ReplicationRules#REPLICAS_MIN} and {@link ReplicationRules#REPLICAS_MAX} replicas; at most one replica is filling
 * at a time, never the tail.
 */
final class ReplicaChanges {
    private ReplicaChanges() {}

    /** The file's record in a transaction of the caller's change; errors name the path and the rule. */
    static InodeRecord fileToChange(Namespace namespace, Transaction transaction, Volume volume,
            OperationContext context, String path, String action) throws RpcException {
        InodeRecord record = namespace.resolve(transaction, volume, context.caller(), path);
        if (!record.isRegularFile()) {
            throw RpcException.errno(Errno.EINVAL, "cannot " + action + " '" + path + "': not a regular file");
        }
        if (!Permissions.isOwnerOrRoot(context.caller(), record.stat())) {
            throw RpcException.errno(Errno.EPERM, "cannot " + action + " '" + path + "': only its owner or root may");
        }
        if (!record.hasLayout()) {
            throw RpcException.errno(Errno.EINVAL, "cannot " + action + " '" + path + "': it was never opened, so it"
                    + " has no replicas yet; its volume's replication policy applies when it is");
        }
        return record;
    }

    /** One replica of a file, found for a change in the change's transaction. */
    record NamedReplica(Volume volume, Transaction transaction, InodeRecord record, int index) {}

    /** The file's replica on exactly these OSDs, for a change the caller may make ({@link #fileToChange}). */
    static NamedReplica namedReplica(Namespace namespace, OperationContext context, String volumeName, String path,
            List<String> osdUuids, String action) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord record = fileToChange(namespace, transaction, volume, context, path, action);
        return new NamedReplica(volume, transaction, record, replicaIndex(record.xlocs(), osdUuids, path));
    }

    /** The replica listing exactly these OSDs (by stripe position); EINVAL naming them otherwise. */
    static int replicaIndex(XLocSet xlocs, List<String> osdUuids, String path) throws RpcException {
        for (int index = 0; index < xlocs.getReplicasCount(); index++) {
            if (xlocs.getReplicas(index).getOsdUuidsList().equals(osdUuids)) {
                return index;
            }
        }
        throw RpcException.errno(Errno.EINVAL, "file '" + path + "' has no replica on OSDs " + osdUuids
                + " (its XLoc version " + xlocs.getVersion() + " lists " + xlocs.getReplicasList().stream()
                        .map(Replica::getOsdUuidsList).toList() + ")");
    }

    /**
     * The chain without replica {@code index} (version unchanged; {@link #commit} sets the next), or empty when
     * the replicas left would all be filling: nothing would then hold the file's older data. A filling replica left
     * last (its successor removed) keeps its place before the new tail, since a filling replica is never the tail.
     * The one rule for a removal chosen by a caller (RemoveReplicaOp) and for a dead member's (ReplicaFailedOp).
     */
    static Optional<XLocSet.Builder> withoutReplica(XLocSet xlocs, int index) {
        XLocSet.Builder changed = xlocs.toBuilder().removeReplicas(index);
        List<Replica> remaining = List.copyOf(changed.getReplicasList());
        int left = remaining.size();
        if (left == 0 || remaining.stream().allMatch(Replica::getFilling)) {
            return Optional.empty();
        }
        if (left > 1 && remaining.get(left - 1).getFilling()) {
            changed.removeReplicas(left - 1);
            changed.addReplicas(left - 2, remaining.get(left - 1));
        }
        return Optional.of(changed);
    }

    /**
     * Commits the file's new chain under the next XLoc version (checked by ReplicaChain's rules), in the same batch
     * as the file's replica work for the MRC's recovery (RecoveryCheck): recorded while a replica is filling or the
     * chain has fewer than {@code targetReplicas} replicas (the count a failure left it short of; 0: none), cleared
     * otherwise. Every change of a chain comes here, so the record is true after every batch; what the MRC had in
     * progress when it stopped is found again from it.
     */
    static InodeRecord commit(Namespace namespace, Transaction transaction, Volume volume, InodeRecord record,
            XLocSet.Builder changed, int targetReplicas) {
        return commit(namespace, transaction, volume.getId(), record, changed, targetReplicas);
    }

    static InodeRecord commit(Namespace namespace, Transaction transaction, String volumeId, InodeRecord record,
            XLocSet.Builder changed, int targetReplicas) {
        XLocSet xlocs = changed.setVersion(record.xlocs().getVersion() + 1).build();
        ReplicaChain.of(xlocs); // the invariants every reader relies on
        InodeRecord updated = record.withXlocs(xlocs);
        namespace.putInode(transaction, volumeId, updated);
        boolean workLeft = xlocs.getReplicasList().stream().anyMatch(Replica::getFilling)
                || xlocs.getReplicasCount() < targetReplicas;
        namespace.setReplicaWork(transaction, volumeId, record.inode(),
                workLeft ? Optional.of(targetReplicas) : Optional.empty());
        transaction.commit();
        return updated;
    }

    /** A change's result: the file's record after it, the volume's share, and a removed replica's XLoc. */
    record Result(String volumeId, InodeRecord record, Optional<VolumeShare> share, Optional<XLocSet> removed) {}

    /** The new XLoc with a read-write XCap, and for a removal the removed replica as a sole replica. */
    static MessageLite answer(OpServices services, RpcCall call, Result result) {
        XCap capability = services.capabilities().issue(result.volumeId(), result.record().inode(),
                AccessMode.ACCESS_MODE_READ_WRITE, result.record().issuedTruncateEpoch(), call.remoteAddress(),
                result.share());
        ReplicaChangeResponse.Builder response = ReplicaChangeResponse.newBuilder()
                .setCredentials(services.capabilities().credentials(capability, result.record().xlocs()));
        result.removed().ifPresent(removed -> response.setRemoved(services.capabilities().credentials(capability,
                removed)));
        return response.build();
    }
}
