package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaFailedRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.placement.NotEnoughOsdsException;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;

/**
 * MRC_REPLICA_FAILED: the one place of the chain re-formation rule (servers/mrc README, "Chain re-formation").
 * A caller holding any valid XCap of a replicated file (checked in prepare) reports that a member of the file's
 * chain did not answer; the MRC removes that member's replica from the XLoc, as a new XLoc version in the file's
 * inode record (one batch), when all of these hold:
 * <ul>
 * <li>the caller's XLoc version is the file's current one (a report against an older XLoc was already handled
 * or is moot: the current XLoc is answered and the caller retries with it);</li>
 * <li>the current XLoc names the OSD and keeps at least one replica without it that is not being filled (a
 * filling replica left last moves before the new tail, as for every removal);</li>
 * <li>the DIR, asked fresh in prepare, does not show the OSD AVAILABLE: its last heartbeat is older than the
 * DIR's {@code dir.heartbeat.timeoutMs}, or it said goodbye. One client's failed call alone removes nothing:
 * that could be a partition between that client and the OSD, and the DIR is the one authority on liveness.</li>
 * </ul>
 * The answer is the file's current XLoc in every case (the re-formed one, or the unchanged one while the DIR
 * still shows the OSD alive); callers retry their update with it. Removing the head makes the next member the
 * head, removing the tail makes its predecessor the tail (which from then on writes synced: the OSD's role comes
 * from the XLoc each request carries). Repeats are harmless: the second report names an older version. The
 * replica row goes as a whole (every OSD of that replica, for all stripe positions), since an XLoc's replicas
 * have equal widths.
 *
 * <p>Re-replication: in the same batch and version the MRC adds a <b>replacement</b> replica, marked filling, just
 * before the new tail (AddReplicaOp's rule of where a replica joins and which OSDs it may use: online best-effort OSDs
 * outside the chain, hosts the chain does not use yet first; for a reserved volume ReservedReplicas' rule: a replica of
 * its admitted placement, or the dead one's share moved to OSDs that admit it, in this batch), when no other replica
 * of the file is filling and such OSDs exist. {@link ReplacementFills} then fills it in the background and clears
 * its mark. Otherwise the chain stays one replica short, which is logged (WARN, naming why) and counted
 * ({@code chainsLeftShort} on the status page); xtfsutil shows the file's replica count beside its volume's policy.
 * The count to restore is recorded with the change (ReplicaChanges.commit), and {@link RecoveryCheck} tops the chain
 * up ({@link #topUp}) once an eligible OSD is online.
 */
public final class ReplicaFailedOp extends MetadataOp<ReplicaFailedRequest, ReplicaFailedOp.Reformation> {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFailedOp.class);

    /**
     * What a report left: the file's record afterwards (its XLoc is the answer) and the replacement replica added
     * with the re-formation, if one was. {@code shortBy}: how many replicas the re-formed chain lacks (1 when a
     * member was removed without a replacement, else 0).
     */
    public record Reformation(String volumeId, InodeRecord record, Optional<Replica> replacement, int shortBy) {
        public XLocSet xlocs() {
            return record.xlocs();
        }
    }

    private final ReplacementFills replacementFills;

    public ReplicaFailedOp(OpServices services, ReplacementFills replacementFills) {
        super(services, "MRC_REPLICA_FAILED", ReplicaFailedRequest.parser());
        this.replacementFills = replacementFills;
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, ReplicaFailedRequest request) {
        return withVerifiedCapability(context, request.getXcap(), false).thenCompose(verified ->
                request.getFailedOsdUuid().isEmpty() ? CompletableFuture.completedFuture(verified)
                        : withFreshOsds(verified));
    }

    @Override
    protected boolean readsOnly(ReplicaFailedRequest request) {
        return request.getFailedOsdUuid().isEmpty();
    }

    @Override
    protected Reformation apply(OperationContext context, ReplicaFailedRequest request) throws RpcException {
        FileIds.ParsedFileId file = FileIds.parse(request.getXcap().getFileId());
        Optional<OsdReport> report = context.osdReports().stream()
                .filter(osd -> osd.uuid().equals(request.getFailedOsdUuid())).findFirst();
        // An OSD the DIR does not know at all is not alive either.
        boolean alive = report.map(OsdReport::available).orElse(false);
        return replicaFailed(services.namespace(), services.ledger(), services.policies(), context.osds(),
                context.osdReports(), file.volumeId(), file.inode(), request.getXlocVersion(),
                request.getFailedOsdUuid(), alive);
    }

    @Override
    protected CompletableFuture<Reformation> afterCommit(ReplicaFailedRequest request, Reformation reformation) {
        reformation.replacement().ifPresent(replacement -> replacementFills.fill(reformation.volumeId(),
                reformation.record().inode(), replacement.getOsdUuidsList()));
        if (reformation.shortBy() > 0) {
            replacementFills.chainLeftShort();
        }
        return CompletableFuture.completedFuture(reformation);
    }

    @Override
    protected MessageLite answer(RpcCall call, Reformation reformation) {
        return reformation.xlocs();
    }

    /**
     * The rule (see the class comment): the file's XLoc after the report, re-formed without {@code failedOsdUuid}'s
     * replica (and with a filling replacement on OSDs of {@code online}, when the rule finds some) if it applied.
     * {@code failedOsdAlive}: whether the DIR shows it AVAILABLE; {@code online}: the OSDs the DIR shows AVAILABLE;
     * {@code reports}: every OSD the DIR knows, with liveness (a reserved volume's replacement: ReservedReplicas).
     */
    public static Reformation replicaFailed(Namespace namespace, ReservationLedger ledger,
            OsdSelectionPolicies policies, List<OsdCandidate> online, List<OsdReport> reports, String volumeId,
            long inode, int reportedVersion, String failedOsdUuid, boolean failedOsdAlive) throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        if (!record.hasLayout()) {
            throw RpcException.errno(Errno.EINVAL, "file " + FileIds.fileId(volumeId, inode) + " has no XLoc yet");
        }
        Reformation unchanged = new Reformation(volumeId, record, Optional.empty(), 0);
        XLocSet current = record.xlocs();
        if (failedOsdUuid.isEmpty() || reportedVersion != current.getVersion() || failedOsdAlive) {
            return unchanged;
        }
        int replica = replicaOf(current, failedOsdUuid);
        if (replica < 0 || current.getReplicasCount() == 1) {
            return unchanged;
        }
        // Not when only replicas still being filled would be left (they lack the file's older data); a filling
        // replica left last moves before the new tail (ReplicaChanges.withoutReplica, the rule of every removal).
        Optional<XLocSet.Builder> without = ReplicaChanges.withoutReplica(current, replica);
        if (without.isEmpty()) {
            return unchanged;
        }
        XLocSet.Builder reformed = without.get();
        String fileId = FileIds.fileId(volumeId, inode);
        // The dead member stays among the members here: it is not picked as its own replacement while the DIR
        // shows it dead (a top-up later may pick it once it is back, and fills it like any other).
        Set<String> members = new HashSet<>();
        current.getReplicasList().forEach(member -> members.addAll(member.getOsdUuidsList()));
        Replacement replacement = replacement(namespace, ledger, policies, online, reports, volumeId, inode,
                reformed, members, current.getReplicas(0).getOsdUuidsCount());
        // The count to restore: what the chain had, or more when an earlier failure left it short already.
        int target = Math.max(namespace.replicaTarget(transaction, volumeId, inode), current.getReplicasCount());
        InodeRecord updated = commitWithAdmission(namespace, ledger, transaction, volumeId, record, reformed, target,
                replacement);
        if (replacement.replica().isPresent()) {
            LOG.info("file {}: removed OSD {} (replica {} of {}) from its chain, the DIR shows it dead; added a"
                    + " replacement on OSD(s) {}, filling in the background; XLoc version {} -> {}", fileId,
                    failedOsdUuid, replica + 1, current.getReplicasCount(),
                    replacement.replica().get().getOsdUuidsList(), current.getVersion(), updated.xlocs().getVersion());
            return new Reformation(volumeId, updated, replacement.replica(), 0);
        }
        LOG.warn("file {}: removed OSD {} (replica {} of {}) from its chain, the DIR shows it dead; XLoc version {}"
                + " -> {}; the chain stays at {} replica(s), one short: {}", fileId, failedOsdUuid, replica + 1,
                current.getReplicasCount(), current.getVersion(), updated.xlocs().getVersion(),
                updated.xlocs().getReplicasCount(), replacement.shortBecause());
        return new Reformation(volumeId, updated, Optional.empty(), 1);
    }

    /** What {@link #topUp} did: the replacement added, or why the chain stays short (then nothing changed). */
    public record TopUp(String volumeId, InodeRecord record, Optional<Replica> replacement, String shortBecause) {}

    /**
     * A short chain's later top-up (RecoveryCheck): when the file's chain has fewer replicas than the count a
     * failure left it short of (its replica work's target) and none is filling, a filling replacement joins before
     * the tail under the next version, by a re-formation's rule ({@link #replacement}) among the OSDs outside the
     * current chain, so a dead member that came back may be picked (and is filled like any other). Nothing changes
     * when the chain is not short or no OSD fits (the reason is answered).
     */
    public static TopUp topUp(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            List<OsdCandidate> online, List<OsdReport> reports, String volumeId, long inode) throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        int target = namespace.replicaTarget(transaction, volumeId, inode);
        if (!record.hasLayout() || record.xlocs().getReplicasCount() >= target) {
            return new TopUp(volumeId, record, Optional.empty(), "it is not short of a count to restore");
        }
        XLocSet current = record.xlocs();
        XLocSet.Builder chain = current.toBuilder();
        Set<String> members = new HashSet<>();
        current.getReplicasList().forEach(member -> members.addAll(member.getOsdUuidsList()));
        Replacement replacement = replacement(namespace, ledger, policies, online, reports, volumeId, inode, chain,
                members, current.getReplicas(0).getOsdUuidsCount());
        if (replacement.replica().isEmpty()) {
            return new TopUp(volumeId, record, Optional.empty(), replacement.shortBecause());
        }
        InodeRecord updated = commitWithAdmission(namespace, ledger, transaction, volumeId, record, chain, target,
                replacement);
        LOG.info("file {}: its chain was {} replica(s) short of {}; added a replacement on OSD(s) {}, filling in the"
                + " background; XLoc version {} -> {}", FileIds.fileId(volumeId, inode), target
                - current.getReplicasCount(), target, replacement.replica().get().getOsdUuidsList(),
                current.getVersion(), updated.xlocs().getVersion());
        return new TopUp(volumeId, updated, replacement.replica(), "");
    }

    /**
     * A replacement added to a chain (its builder), or why none was; {@code admission}: for a reserved volume whose
     * dead replica's share moved to other OSDs, the ledger change to commit in the file's batch.
     */
    private record Replacement(Optional<Replica> replica, String shortBecause, Optional<LedgerChange> admission) {
        static Replacement none(String shortBecause) {
            return new Replacement(Optional.empty(), shortBecause, Optional.empty());
        }
    }

    /**
     * Adds a filling replacement to {@code chain} (before its tail, AddReplicaOp's rule), or answers why none: the
     * one rule of a re-formation's replacement and of a top-up. A volume without a reservation takes OSDs that
     * AddReplicaOp's placement rule picks among {@code online} outside {@code members}; a reserved volume only OSDs
     * holding its share (ReservedReplicas: a replica row of its placement the chain does not use, or a dead row's
     * share moved to OSDs that admit it).
     */
    private static Replacement replacement(Namespace namespace, ReservationLedger ledger,
            OsdSelectionPolicies policies, List<OsdCandidate> online, List<OsdReport> reports, String volumeId,
            long inode, XLocSet.Builder chain, Set<String> members, int width) {
        String shortBecause = whyNoReplacement(namespace, volumeId, chain);
        if (!shortBecause.isEmpty()) {
            return Replacement.none(shortBecause);
        }
        if (ledger.replicaOsds(volumeId).isPresent()) {
            // The rows the chain uses now (a dead member's row is not among them, so it may be moved).
            Set<String> chainOsds = new HashSet<>();
            chain.getReplicasList().forEach(member -> chainOsds.addAll(member.getOsdUuidsList()));
            try {
                ReservedReplicas.Pick pick = ReservedReplicas.pick(ledger,
                        namespace.volumeById(volumeId).orElseThrow(), reports, online, chainOsds);
                AddReplicaOp.withFillingReplica(chain, pick.stripe());
                return new Replacement(chain.getReplicasList().stream()
                        .filter(added -> added.getOsdUuidsList().equals(pick.stripe())).findFirst(), "",
                        pick.admission());
            } catch (ReservedReplicas.Refused refused) {
                return Replacement.none(refused.getMessage());
            }
        }
        try {
            List<String> stripe = AddReplicaOp.pickReplica(policies, online, namespace.volumeById(volumeId)
                    .orElseThrow(), members, width, inode);
            AddReplicaOp.withFillingReplica(chain, stripe);
            return new Replacement(chain.getReplicasList().stream()
                    .filter(added -> added.getOsdUuidsList().equals(stripe)).findFirst(), "", Optional.empty());
        } catch (NotEnoughOsdsException | IllegalStateException noOsds) {
            return Replacement.none("no online OSDs outside the chain " + members + " to replace it: "
                    + noOsds.getMessage());
        }
    }

    /**
     * Commits the chain change (ReplicaChanges.commit, with the count to restore) and, when the replacement moved a
     * reservation share, its ledger change in the same batch, published only after the commit (the ledger's
     * invariant: what it publishes is durable).
     */
    private static InodeRecord commitWithAdmission(Namespace namespace, ReservationLedger ledger,
            Transaction transaction, String volumeId, InodeRecord record, XLocSet.Builder chain, int target,
            Replacement replacement) throws RpcException {
        replacement.admission().ifPresent(change -> change.forEachWrite(transaction::write));
        InodeRecord updated = ReplicaChanges.commit(namespace, transaction, volumeId, record, chain, target);
        replacement.admission().ifPresent(ledger::publish);
        if (replacement.admission().isPresent()) {
            LOG.info("volume {}: the reservation share of a replica on a dead OSD moved to OSD(s) {}, with file {}'s"
                    + " replacement; placement now {}", volumeId, replacement.replica().orElseThrow().getOsdUuidsList(),
                    FileIds.fileId(volumeId, record.inode()), ledger.replicaOsds(volumeId).orElseThrow());
        }
        return updated;
    }

    /** Why the re-formed chain gets no replacement now (empty: it may get one, OSDs permitting). */
    private static String whyNoReplacement(Namespace namespace, String volumeId, XLocSet.Builder reformed) {
        Optional<Volume> volume = namespace.volumeById(volumeId);
        if (volume.isEmpty()) {
            return "its volume " + volumeId + " is gone";
        }
        for (int index = 0; index < reformed.getReplicasCount(); index++) {
            if (reformed.getReplicas(index).getFilling()) {
                return "replica " + (index + 1) + " is still being filled (one fill at a time per file)";
            }
        }
        return "";
    }

    private static int replicaOf(XLocSet xlocs, String osdUuid) {
        for (int replica = 0; replica < xlocs.getReplicasCount(); replica++) {
            if (xlocs.getReplicas(replica).getOsdUuidsList().contains(osdUuid)) {
                return replica;
            }
        }
        return -1;
    }
}
