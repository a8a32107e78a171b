package org.xtreemfs.mrc.ops;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.registry.OsdDirectory;
import org.xtreemfs.mrc.stages.MetadataStage;

/**
 * The recovery work that outlives one report of a dead member (servers/mrc README, "Chain re-formation"): every
 * change of a chain records in its own batch whether the file has replica work left (ReplicaChanges.commit: a
 * filling replica, or fewer replicas than the count a failure left the chain short of), and this check walks those
 * records and does the work:
 * <ul>
 * <li>a <b>filling replica</b> whose fill does not run here is filled ({@link ReplacementFills}: OSD_FILL_REPLICA,
 * then the mark cleared): in every round for a replacement the MRC added (the file has a count to restore; its fill
 * was lost with a restart, or ReplacementFills gave up), and in the first pass after a start for a replica a caller
 * added with MRC_ADD_REPLICA too (its caller fills it, but may have been cut off with the MRC's previous run; a
 * caller still filling it meanwhile only makes both copy, and a copy made is not made again);</li>
 * <li>a <b>short chain</b> (fewer replicas than its count to restore, none filling) gets a replacement by the
 * re-formation's rule ({@link ReplicaFailedOp#topUp}) once an eligible OSD is online (one registered or back since),
 * which is then filled the same way;</li>
 * <li>a record whose file is gone or needs nothing any more is removed.</li>
 * </ul>
 * Rounds: the first right after the start (the first pass goes on round after round until it has seen every record),
 * then one every {@code periodMs} (0: none after the first pass). A round checks at most {@code filesMax} files,
 * after the previous round's last one (wrapping at the end), each as one operation on the metadata stage, so a
 * round's work and its share of the metadata thread are bounded however many files need work. No duplicate
 * replacement: a top-up adds one only while no replica of the file is filling (one fill at a time per file), checked
 * on the metadata thread with the change; and a fill that runs already is not started again.
 */
public final class RecoveryCheck implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryCheck.class);
    /** How long a round waits for the DIR's OSD list and for one file's check on the metadata stage. */
    private static final long WAIT_MS = 30_000;
    /** The wait after a failed round when no period is set (the first pass must still end). */
    private static final long FAILED_ROUND_RETRY_MS = 1_000;

    private final Namespace namespace;
    private final ReservationLedger ledger;
    private final OsdSelectionPolicies policies;
    private final MetadataStage metadataStage;
    private final OsdDirectory osds;
    private final ReplacementFills fills;
    private final long periodMs;
    private final int filesMax;
    private final ScheduledExecutorService rounds;
    /** The last record the previous round checked (null: start from the first); only the rounds' thread uses it. */
    private byte[] cursor;
    /** Until the cursor wrapped once after the start. */
    private boolean firstPass = true;
    private int shortInPass;
    private final AtomicLong roundsRun = new AtomicLong();
    private final AtomicLong fillsResumed = new AtomicLong();
    private final AtomicLong chainsToppedUp = new AtomicLong();
    private volatile long chainsShort;

    /**
     * @param periodMs the wait between rounds (mrc.recovery.checkPeriodMs; 0: only the first pass after the start)
     * @param filesMax the most files one round checks (mrc.recovery.checkFilesMax)
     */
    public RecoveryCheck(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            MetadataStage metadataStage, OsdDirectory osds, ReplacementFills fills, long periodMs, int filesMax) {
        if (periodMs < 0 || filesMax <= 0) {
            throw new IllegalArgumentException("periodMs " + periodMs + " must not be negative and filesMax "
                    + filesMax + " must be positive");
        }
        this.namespace = namespace;
        this.ledger = ledger;
        this.policies = policies;
        this.metadataStage = metadataStage;
        this.osds = osds;
        this.fills = fills;
        this.periodMs = periodMs;
        this.filesMax = filesMax;
        this.rounds = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "mrc-recovery-check");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts the first round now. */
    public void start() {
        schedule(0);
    }

    private void schedule(long delayMs) {
        try {
            rounds.schedule(this::roundAndNext, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closing
        }
    }

    private void roundAndNext() {
        try {
            round();
        } catch (Exception | AssertionError e) {
            if (rounds.isShutdown()) {
                return;
            }
            // Never at once again: a stage that is overloaded or a store that fails would make that a busy loop.
            long retryMs = periodMs > 0 ? periodMs : FAILED_ROUND_RETRY_MS;
            LOG.warn("recovery check: a round failed, next in {} ms: {}", retryMs, e.toString());
            schedule(retryMs);
            return;
        }
        if (firstPass) {
            schedule(0);
        } else if (periodMs > 0) {
            schedule(periodMs);
        }
    }

    /** What one file's check asks for: a fill to start (the replica's OSDs), and whether it came from a top-up. */
    record Work(String volumeId, long inode, Optional<List<String>> fill, boolean toppedUp, boolean shortStill) {
        static Work none(String volumeId, long inode) {
            return new Work(volumeId, inode, Optional.empty(), false, false);
        }
    }

    private void round() throws Exception {
        roundsRun.incrementAndGet();
        List<Namespace.ReplicaWork> files = namespace.read(() -> namespace.replicaWork(cursor, filesMax));
        List<OsdCandidate> online = List.of();
        List<OsdReport> reports = List.of();
        if (!files.isEmpty()) {
            try {
                // Fresh, as a re-formation's: an OSD that registered or came back since counts at once.
                var listing = osds.allForAdmission().get(WAIT_MS, TimeUnit.MILLISECONDS);
                online = OsdDirectory.available(listing);
                reports = OsdReport.of(listing);
            } catch (Exception dirUnreachable) {
                LOG.info("recovery check: no OSD list from the DIR ({}); short chains wait for the next round",
                        dirUnreachable.toString());
            }
        }
        List<OsdCandidate> candidates = online;
        List<OsdReport> knownOsds = reports;
        boolean includeCallersFills = firstPass;
        for (Namespace.ReplicaWork file : files) {
            Work work = metadataStage.submit("recovery check", () -> check(namespace, ledger, policies, candidates,
                    knownOsds, file, includeCallersFills)).get(WAIT_MS, TimeUnit.MILLISECONDS);
            cursor = file.key();
            if (work.shortStill()) {
                shortInPass++;
            }
            if (work.toppedUp()) {
                chainsToppedUp.incrementAndGet();
            }
            if (work.fill().isPresent() && !fills.filling(work.volumeId(), work.inode(), work.fill().get())) {
                if (!work.toppedUp()) {
                    fillsResumed.incrementAndGet();
                    LOG.info("recovery check: file {}: its replica on OSD(s) {} is filling and its fill does not run"
                            + " here; filling it", FileIds.fileId(work.volumeId(), work.inode()), work.fill().get());
                }
                fills.fill(work.volumeId(), work.inode(), work.fill().get());
            }
        }
        if (files.size() < filesMax) {
            cursor = null;
            firstPass = false;
            chainsShort = shortInPass;
            shortInPass = 0;
        }
    }

    /**
     * One file's check, on the metadata stage (its logic; reads no clock): the fill to start for its filling
     * replica (a replacement's always, a caller's only when {@code includeCallersFills}), or a top-up of a short
     * chain from {@code online}, or the removal of a record with nothing left to do (the file deleted, or its chain
     * whole and filled).
     */
    static Work check(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            List<OsdCandidate> online, List<OsdReport> reports, Namespace.ReplicaWork file,
            boolean includeCallersFills) throws RpcException {
        String volumeId = file.volumeId();
        long inode = file.inode();
        Transaction transaction = namespace.begin();
        InodeRecord record;
        try {
            record = namespace.inodeOf(transaction, volumeId, inode);
        } catch (RpcException gone) {
            if (gone.posixErrno() != Errno.ENOENT) {
                throw gone;
            }
            namespace.setReplicaWork(transaction, volumeId, inode, Optional.empty());
            transaction.commit();
            return Work.none(volumeId, inode);
        }
        // The record as of this operation (the round's listing may be older).
        int target = namespace.replicaTarget(transaction, volumeId, inode);
        XLocSet xlocs = record.hasLayout() ? record.xlocs() : XLocSet.getDefaultInstance();
        Optional<Replica> filling = xlocs.getReplicasList().stream().filter(Replica::getFilling).findFirst();
        if (filling.isPresent()) {
            boolean replacement = target > 0;
            return replacement || includeCallersFills
                    ? new Work(volumeId, inode, Optional.of(filling.get().getOsdUuidsList()), false, false)
                    : Work.none(volumeId, inode);
        }
        if (xlocs.getReplicasCount() > 0 && xlocs.getReplicasCount() < target) {
            ReplicaFailedOp.TopUp topUp = ReplicaFailedOp.topUp(namespace, ledger, policies, online, reports, volumeId,
                    inode);
            if (topUp.replacement().isPresent()) {
                return new Work(volumeId, inode, Optional.of(topUp.replacement().get().getOsdUuidsList()), true,
                        false);
            }
            LOG.debug("recovery check: file {} stays {} of {} replicas: {}", FileIds.fileId(volumeId, inode),
                    xlocs.getReplicasCount(), target, topUp.shortBecause());
            return new Work(volumeId, inode, Optional.empty(), false, true);
        }
        namespace.setReplicaWork(transaction, volumeId, inode, Optional.empty());
        transaction.commit();
        return Work.none(volumeId, inode);
    }

    /**
     * What the status page shows, by its name there: rounds run, fills resumed, chains topped up, chains short after
     * the last pass.
     */
    public Map<String, Long> counters() {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("recoveryRounds", roundsRun.get());
        counters.put("recoveryFillsResumed", fillsResumed.get());
        counters.put("recoveryChainsToppedUp", chainsToppedUp.get());
        counters.put("recoveryChainsShort", chainsShort);
        return counters;
    }

    @Override
    public void close() {
        rounds.shutdownNow();
    }
}
