package org.xtreemfs.mrc.ops;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.FillReplicaRequest;
import org.xtreemfs.interfaces.osd.FillReplicaResponse;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.stages.MetadataStage;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Fills the replacement replica a chain's re-formation added (ReplicaFailedOp) in the background, as a caller of
 * MRC_ADD_REPLICA would (client.FileReplicas): OSD_FILL_REPLICA at each of its OSDs with a read-write XCap the MRC
 * signs for the file's current XLoc (the OSDs copy at their bounded best-effort rate, the fair queue's flow
 * {@code <volume>/fill}), then the replica's filling mark is cleared ({@link ReplicaFilledOp#replacementFilled}) on
 * the metadata stage.
 *
 * <p>Each attempt reads the file's XLoc afresh, so a chain that changed meanwhile (another member died) is filled
 * under its current version; a replica no longer filling, or no longer in the chain, or a deleted file ends the work.
 * A failed attempt (an OSD unreachable or OVERLOADED, an XLoc that changed during the fill) is repeated after
 * {@code retryDelayMs}, at most {@link #ATTEMPTS_MAX} times; objects copied already are not copied again while the
 * OSD runs. After that the replica stays filling (logged) until {@link RecoveryCheck}'s next round starts it again
 * ({@code xtfsutil --set-replication N} finishes it too). At most {@link #ACTIVE_MAX} files are filled at once; more
 * are left filling the same way. What is in progress here is in memory; what is left to do is recorded with each
 * chain's change (ReplicaChanges.commit), so after an MRC restart RecoveryCheck's first round starts every
 * unfinished fill again.
 */
public final class ReplacementFills implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplacementFills.class);
    /** Attempts per replacement before it is left filling. */
    public static final int ATTEMPTS_MAX = 10;
    /** Replacements filled at once; the OSDs bound their fills too (osd.replication.fillsMax). */
    public static final int ACTIVE_MAX = 1_024;

    private final Namespace namespace;
    private final ReservationLedger ledger;
    private final MetadataStage metadataStage;
    private final CapabilityIssuer capabilities;
    private final UuidResolver osdAddresses;
    private final OsdServiceClient osds;
    private final long retryDelayMs;
    private final ScheduledExecutorService retries;
    /** The replacements being filled, by {@link #key}. */
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong filled = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong chainsLeftShort = new AtomicLong();

    /**
     * @param osds a stub whose timeout bounds one attempt's fill (mrc.recovery.fillTimeoutMs)
     * @param retryDelayMs the wait before a failed attempt is repeated (mrc.recovery.fillRetryDelayMs)
     */
    public ReplacementFills(Namespace namespace, ReservationLedger ledger, MetadataStage metadataStage,
            CapabilityIssuer capabilities, UuidResolver osdAddresses, OsdServiceClient osds, long retryDelayMs) {
        this.namespace = namespace;
        this.ledger = ledger;
        this.metadataStage = metadataStage;
        this.capabilities = capabilities;
        this.osdAddresses = osdAddresses;
        this.osds = osds;
        this.retryDelayMs = retryDelayMs;
        this.retries = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "mrc-replacement-fills");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts filling the replacement on {@code osdUuids} of the file (after its re-formation committed, or when
     * RecoveryCheck finds it unfinished); nothing when that fill runs already.
     */
    public void fill(String volumeId, long inode, List<String> osdUuids) {
        String fileId = FileIds.fileId(volumeId, inode);
        if (!active.add(key(fileId, osdUuids))) {
            return; // it runs already
        }
        started.incrementAndGet();
        if (active.size() > ACTIVE_MAX) {
            active.remove(key(fileId, osdUuids));
            failed.incrementAndGet();
            LOG.warn("file {}: its replacement replica on OSD(s) {} is left filling: {} replacements are being"
                    + " filled already; the recovery check's next round starts it again", fileId, osdUuids,
                    ACTIVE_MAX);
            return;
        }
        attempt(volumeId, inode, osdUuids, 1);
    }

    /** Whether the fill of the replica on {@code osdUuids} of the file runs now. */
    boolean filling(String volumeId, long inode, List<String> osdUuids) {
        return active.contains(key(FileIds.fileId(volumeId, inode), osdUuids));
    }

    /** A re-formation removed a member without adding a replacement (ReplicaFailedOp logged why). */
    void chainLeftShort() {
        chainsLeftShort.incrementAndGet();
    }

    /** What the status page shows, by its name there. */
    public Map<String, Long> counters() {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("replacementsStarted", started.get());
        counters.put("replacementsFilled", filled.get());
        counters.put("replacementsFailed", failed.get());
        counters.put("chainsLeftShort", chainsLeftShort.get());
        counters.put("replacementsFilling", (long) active.size());
        return counters;
    }

    /** The file's record and its volume's share, read on the metadata thread. */
    private record Current(InodeRecord record, Optional<VolumeShare> share) {}

    private void attempt(String volumeId, long inode, List<String> osdUuids, int attempt) {
        String fileId = FileIds.fileId(volumeId, inode);
        long startNanos = System.nanoTime();
        metadataStage.submit("replacement fill", () -> new Current(namespace.inodeOf(namespace.begin(), volumeId,
                inode), ledger.share(volumeId)))
                .thenCompose(current -> {
                    XLocSet xlocs = current.record().xlocs();
                    Optional<Replica> replica = xlocs.getReplicasList().stream()
                            .filter(member -> member.getOsdUuidsList().equals(osdUuids)).findFirst();
                    if (replica.isEmpty() || !replica.get().getFilling()) {
                        return CompletableFuture.completedFuture(Optional.<XLocSet>empty());
                    }
                    FileCredentials credentials = capabilities.credentials(capabilities.issue(volumeId, inode,
                            AccessMode.ACCESS_MODE_READ_WRITE, current.record().issuedTruncateEpoch(),
                            "mrc-replacement-fill", current.share()), xlocs);
                    UserCredentials user = UserCredentials.newBuilder().setUsername("mrc-replacement-fill")
                            .setUid(current.record().stat().getUid()).setGid(current.record().stat().getGid()).build();
                    List<CompletableFuture<FillReplicaResponse>> fills = new ArrayList<>();
                    for (String osdUuid : osdUuids) {
                        fills.add(osdAddresses.resolve(osdUuid).thenCompose(address -> osds.fillReplica(address, user,
                                FillReplicaRequest.newBuilder().setCredentials(credentials).setFileId(fileId).build()))
                                .whenComplete((ignored, error) -> {
                                    if (error != null && unwrap(error) instanceof RpcTransportException) {
                                        osdAddresses.invalidate(osdUuid);
                                    }
                                }));
                    }
                    return CompletableFuture.allOf(fills.toArray(CompletableFuture[]::new))
                            .thenCompose(done -> metadataStage.submit("MRC_REPLICA_FILLED (replacement)", () ->
                                    ReplicaFilledOp.replacementFilled(namespace, volumeId, inode, osdUuids)))
                            .thenApply(after -> {
                                long bytes = fills.stream().mapToLong(fill -> fill.join().getBytesCopied()).sum();
                                LOG.info("file {}: replacement replica on OSD(s) {} filled ({} bytes copied in {} ms,"
                                        + " attempt {}); XLoc version {}, {} replica(s)", fileId, osdUuids, bytes,
                                        (System.nanoTime() - startNanos) / 1_000_000L, attempt, after.getVersion(),
                                        after.getReplicasCount());
                                return Optional.of(after);
                            });
                })
                .whenComplete((after, error) -> {
                    if (error == null) {
                        if (after.isPresent()) {
                            filled.incrementAndGet();
                        } else {
                            LOG.info("file {}: replica on OSD(s) {} is no longer a filling member of its chain; its"
                                    + " replacement fill ends", fileId, osdUuids);
                        }
                        active.remove(key(fileId, osdUuids));
                        return;
                    }
                    Throwable cause = unwrap(error);
                    boolean gone = cause instanceof RpcException rpc && rpc.errorType()
                            == org.xtreemfs.interfaces.rpc.ErrorType.ERRNO && rpc.posixErrno() == Errno.ENOENT;
                    if (gone || attempt >= ATTEMPTS_MAX || retries.isShutdown()) {
                        failed.incrementAndGet();
                        active.remove(key(fileId, osdUuids));
                        LOG.warn("file {}: filling its replacement replica on OSD(s) {} failed (attempt {} of {}): {};"
                                + " the replica stays filling until the recovery check's next round starts it again"
                                + " (mrc.recovery.checkPeriodMs) or xtfsutil --set-replication finishes it", fileId,
                                osdUuids, attempt, ATTEMPTS_MAX, cause.toString());
                        return;
                    }
                    LOG.info("file {}: filling its replacement replica on OSD(s) {} failed (attempt {} of {}): {};"
                            + " again in {} ms", fileId, osdUuids, attempt, ATTEMPTS_MAX, cause.toString(),
                            retryDelayMs);
                    try {
                        retries.schedule(() -> attempt(volumeId, inode, osdUuids, attempt + 1), retryDelayMs,
                                TimeUnit.MILLISECONDS);
                    } catch (java.util.concurrent.RejectedExecutionException closed) {
                        active.remove(key(fileId, osdUuids));
                    }
                });
    }

    /** A replacement in progress: the file and the replica's OSDs (a replacement of a replacement is another). */
    private static String key(String fileId, List<String> osdUuids) {
        return fileId + " " + osdUuids;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Override
    public void close() {
        retries.shutdownNow();
    }
}
