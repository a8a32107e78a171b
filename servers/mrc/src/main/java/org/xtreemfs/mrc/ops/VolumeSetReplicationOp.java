package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeSetReplicationRequest;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.metadata.VolumeValidation;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;

/**
 * MRC_VOLUME_SET_REPLICATION: changes a volume's replication policy, which new files get (owner or root); existing
 * files keep their replicas (change those per file: MRC_ADD_REPLICA / MRC_REMOVE_REPLICA). The count is checked by
 * the one rule (ReplicationRules, through VolumeValidation) and, like at creation, against the OSDs a volume without
 * a reservation may use (VolumeCreateOp's placeability rule). A reserved volume's replica count is re-admitted
 * (each copy's OSD admits its share) in the same batch; existing files keep their replicas, including copies on the
 * OSDs a lowered count released (lower those files with MRC_REMOVE_REPLICA, `xtfsutil --set-replication N PATH`).
 */
public final class VolumeSetReplicationOp extends MetadataOp<VolumeSetReplicationRequest, Volume> {
    public VolumeSetReplicationOp(OpServices services) {
        super(services, "MRC_VOLUME_SET_REPLICATION", VolumeSetReplicationRequest.parser(),
                ResultCodec.message(Volume.parser()));
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context,
            VolumeSetReplicationRequest request) {
        return services.osds().allForAdmission().thenApply(all -> context.withOsds(all.stream()
                .map(OsdCandidate::of).toList()).withOsdReports(OsdReport.of(all)));
    }

    @Override
    protected Volume apply(OperationContext context, VolumeSetReplicationRequest request) throws RpcException {
        return described(setReplication(services.namespace(), services.ledger(), services.policies(), context,
                request.getVolumeName(), request.getReplicationPolicy()), context);
    }

    @Override
    protected MessageLite answer(RpcCall call, Volume volume) {
        return volume;
    }

    /**
     * Stores the volume's new replication policy for new files. A reserved volume's replicas are admitted first
     * ({@link ReservationLedger#changeReplicas}: raising the count admits its share on new OSDs of its type, on hosts
     * its replicas do not use yet first; lowering it releases the last replicas' shares); the ledger change and the
     * volume commit in one batch. Refused with ENOSPC and the scheduler's reason (the short dimension) when no OSD
     * admits it.
     */
    public static Volume setReplication(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            OperationContext context, String volumeName, ReplicationPolicy requested) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Permissions.checkVolumeOwnerOrRoot(context.caller(), volume, "change the replication of");
        ReplicationPolicy policy = VolumeValidation.normalizeReplication(requested);
        Volume changed = volume.toBuilder().setDefaultReplicationPolicy(policy).build();
        VolumeCreateOp.requirePlaceableWidth(policies, context.osds(), changed);
        Optional<LedgerChange> admission = Optional.empty();
        Optional<List<List<String>>> reserved = ledger.replicaOsds(volume.getId());
        if (reserved.isPresent()) {
            Set<String> held = ReservedReplicas.members(reserved.get());
            ReservationLedger.Decision decision = ledger.changeReplicas(volume.getId(), volumeName,
                    ReplicationRules.replicas(policy), context.osdReports(),
                    ReservedReplicas.sameHosts(context.osds(), held));
            if (decision instanceof ReservationLedger.Decision.Refused refused) {
                throw RpcException.errno(Errno.ENOSPC, "cannot change the replication of volume '" + volumeName
                        + "' to " + ReplicationRules.replicas(policy) + " replica(s): " + refused.reason());
            }
            admission = Optional.of(((ReservationLedger.Decision.Admitted) decision).change());
        }
        Transaction transaction = namespace.begin();
        namespace.putVolume(transaction, changed);
        admission.ifPresent(change -> change.forEachWrite(transaction::write));
        transaction.commit();
        admission.ifPresent(ledger::publish);
        return changed;
    }
}
