package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.AddReplicaRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.placement.ChainPlacement;
import org.xtreemfs.mrc.placement.NotEnoughOsdsException;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.placement.OsdSelectionPolicy;

/**
 * MRC_ADD_REPLICA: adds a replica to a file's chains as a filling replica (common.proto Replica.filling), inserted
 * just before the tail, under a new XLoc version. From then on its predecessor forwards every update to it (the
 * OSDs fence off updates carrying the old chain), it serves no reads, and the caller fills it with OSD_FILL_REPLICA
 * on each of its OSDs and then calls MRC_REPLICA_FILLED. Before the tail, not after it: the tail acknowledges and
 * serves reads, which a replica missing old data must not. A file with one replica gets the new one as its head
 * (it then fills from its successor, the old replica; servers/osd/README.md, "Filling a new replica").
 *
 * <p>The logic, {@link #addReplica}, is what the MRC's own recovery calls after removing a dead member, too.
 */
public final class AddReplicaOp extends MetadataOp<AddReplicaRequest, ReplicaChanges.Result> {
    public AddReplicaOp(OpServices services) {
        super(services, "MRC_ADD_REPLICA", AddReplicaRequest.parser(), ResultCodec.REPLICA_CHANGE);
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, AddReplicaRequest request) {
        // Fresh, with liveness: a reserved volume's replica goes only where its share is admitted (ReservedReplicas).
        return withFreshOsds(context);
    }

    @Override
    protected ReplicaChanges.Result apply(OperationContext context, AddReplicaRequest request) throws RpcException {
        return addReplica(services.namespace(), services.ledger(), services.policies(), context,
                request.getVolumeName(), request.getPath(), request.getOsdUuidsList());
    }

    @Override
    protected MessageLite answer(RpcCall call, ReplicaChanges.Result result) {
        return ReplicaChanges.answer(services, call, result);
    }

    /**
     * Adds a filling replica before the file's tail: on {@code osdUuids} (one per stripe position) when given, else
     * on OSDs the volume's policy picks among the context's online best-effort candidates that are not in the file's
     * XLoc yet; for a reserved volume only on a replica of its admitted placement (ReservedReplicas: one the chain
     * does not use, or a dead one's share moved to OSDs that admit it, in this batch). Refused (EBUSY) while another
     * replica of the file is filling, and at the replica bound.
     */
    public static ReplicaChanges.Result addReplica(Namespace namespace, ReservationLedger ledger,
            OsdSelectionPolicies policies, OperationContext context, String volumeName, String path,
            List<String> osdUuids) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord record = ReplicaChanges.fileToChange(namespace, transaction, volume, context, path,
                "add a replica to");
        XLocSet xlocs = record.xlocs();
        ReplicaChain chain = ReplicaChain.of(xlocs);
        if (chain.fillingReplica().isPresent()) {
            throw RpcException.errno(Errno.EBUSY, "cannot add a replica to '" + path + "': replica "
                    + (chain.fillingReplica().get() + 1) + " of " + chain.length() + " is still being filled; finish"
                    + " its fill (OSD_FILL_REPLICA, then MRC_REPLICA_FILLED) or remove it first");
        }
        Optional<String> tooMany = ReplicationRules.replicasProblem(chain.length() + 1);
        if (tooMany.isPresent()) {
            throw RpcException.errno(Errno.EINVAL, "cannot add a replica to '" + path + "': " + (chain.length() + 1)
                    + " " + tooMany.get());
        }
        Set<String> members = new HashSet<>();
        xlocs.getReplicasList().forEach(replica -> members.addAll(replica.getOsdUuidsList()));
        Optional<List<List<String>>> reserved = ledger.replicaOsds(volume.getId());
        Optional<LedgerChange> admission = Optional.empty();
        List<String> stripe;
        if (reserved.isPresent() && !osdUuids.isEmpty() && !reserved.get().contains(osdUuids)) {
            throw RpcException.errno(Errno.EINVAL, "cannot add a replica on OSDs " + osdUuids + " to '" + path
                    + "': volume '" + volume.getName() + "' has a reservation, admitted on the replicas "
                    + reserved.get() + "; a copy goes only on one of those");
        } else if (reserved.isPresent() && osdUuids.isEmpty()) {
            try {
                ReservedReplicas.Pick pick = ReservedReplicas.pick(ledger, volume, context.osdReports(),
                        context.osds(), members);
                stripe = pick.stripe();
                admission = pick.admission();
            } catch (ReservedReplicas.Refused refused) {
                throw RpcException.errno(Errno.ENOSPC, "cannot add a replica to '" + path + "': "
                        + refused.getMessage());
            }
        } else {
            stripe = osdUuids.isEmpty() ? pick(policies, context, volume, members, chain.width(), record.inode(), path)
                    : List.copyOf(osdUuids);
        }
        if (stripe.size() != chain.width() || new HashSet<>(stripe).size() != stripe.size()
                || stripe.stream().anyMatch(members::contains)) {
            throw RpcException.errno(Errno.EINVAL, "cannot add a replica on OSDs " + stripe + " to '" + path + "': it"
                    + " needs " + chain.width() + " distinct OSDs (one per stripe position) not yet in its chain "
                    + members);
        }
        // The caller chose this chain's count: a count a failure left it short of is no longer restored by the MRC.
        // A moved reservation share commits in the file's batch and is published only after it (ledger invariant).
        admission.ifPresent(change -> change.forEachWrite(transaction::write));
        InodeRecord updated = ReplicaChanges.commit(namespace, transaction, volume, record,
                withFillingReplica(xlocs.toBuilder(), stripe), 0);
        admission.ifPresent(ledger::publish);
        return new ReplicaChanges.Result(volume.getId(), updated, ledger.share(volume.getId()), Optional.empty());
    }

    /**
     * {@code chain} with a filling replica on {@code stripe} inserted just before its tail (as the head of a chain
     * of one): the one place of where a new replica joins, for this operation and for a dead member's replacement
     * (ReplicaFailedOp). The version is left to the caller's commit.
     */
    static XLocSet.Builder withFillingReplica(XLocSet.Builder chain, List<String> stripe) {
        Replica added = Replica.newBuilder().addAllOsdUuids(stripe)
                .setStripingPolicy(chain.getReplicas(0).getStripingPolicy()).setFilling(true).build();
        return chain.addReplicas(Math.max(0, chain.getReplicasCount() - 1), added);
    }

    /**
     * The OSDs (one per stripe position) the volume's policy picks for a new replica among the online best-effort
     * candidates outside the chain's {@code members}, spread over hosts as ChainPlacement does: the placement rule
     * of this operation and of a dead member's replacement. NotEnoughOsdsException names what was found.
     */
    static List<String> pickReplica(OsdSelectionPolicies policies, List<OsdCandidate> online, Volume volume,
            Set<String> members, int width, long inode) throws NotEnoughOsdsException {
        OsdSelectionPolicy policy = policies.find(volume.getOsdSelectionPolicy()).orElseThrow(() ->
                new IllegalStateException("volume '" + volume.getName() + "' names unknown OSD selection policy '"
                        + volume.getOsdSelectionPolicy() + "'"));
        List<OsdCandidate> candidates = policies.bestEffortCandidates(online).stream()
                .filter(candidate -> !members.contains(candidate.uuid())).toList();
        // Hosts first: a pick on hosts the chain does not use yet, when there are enough; else any distinct OSDs.
        Set<String> memberHosts = new HashSet<>();
        online.stream().filter(osd -> members.contains(osd.uuid())).forEach(osd -> memberHosts.add(osd.hostKey()));
        List<OsdCandidate> elsewhere = candidates.stream()
                .filter(candidate -> !memberHosts.contains(candidate.hostKey())).toList();
        if (elsewhere.size() >= width && elsewhere.size() < candidates.size()) {
            try {
                return ChainPlacement.select(policy, elsewhere, width, 1, inode).get(0);
            } catch (NotEnoughOsdsException tooFewElsewhere) {
                // The policy refused some of them (space): any host then.
            }
        }
        return ChainPlacement.select(policy, candidates, width, 1, inode).get(0);
    }

    private static List<String> pick(OsdSelectionPolicies policies, OperationContext context, Volume volume,
            Set<String> members, int width, long inode, String path) throws RpcException {
        try {
            return pickReplica(policies, context.osds(), volume, members, width, inode);
        } catch (NotEnoughOsdsException e) {
            throw RpcException.errno(Errno.ENOSPC, "cannot add a replica to '" + path + "': no " + width
                    + " online OSD(s) outside its chain " + members + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            throw RpcException.internal(e.getMessage());
        }
    }
}
