package org.xtreemfs.mrc.ops;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.osd.DeleteFilesRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.stages.MetadataStage;

/**
 * Has the OSDs delete the objects of files whose last link went (unlink, rename over a file). The operation that
 * removed the link recorded the file in its own batch ({@link Namespace#dropLink}, key kind 'G'), so the client waits
 * for no OSD and a crash loses no deletion. This sender, one thread of the MRC, sends those files in batches: one
 * OSD_DELETE_FILES per OSD and round with every waiting file that has objects there (every OSD of every replica; each
 * OSD records them in its own deletion queue with one synced write and removes the objects in the background, after
 * osd.deletion.delayMs, as it does for deleted volumes and OSD_UNLINK), then removes the records of the files every OSD
 * acknowledged in one batch. A file an OSD did not acknowledge (down, OVERLOADED) stays recorded and goes to the end of
 * the queue, and a round with such a failure is followed by {@code retryDelayMs} of rest: the deletion is repeated until
 * done, across MRC restarts (the records are read at start), and repeating one is harmless (the OSD keeps a pending
 * file's first due time; a file already deleted is deleted again, finding nothing).
 *
 * <p>Bounds: at most {@link OsdServiceClient#DELETE_OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX} files per request and round; at most {@link #FILES_KEPT_MAX} files
 * in memory, the rest stays only in the store until the ones in memory are done and is then read back. Each round
 * waits up to {@code batchDelayMs} for more files, so a stream of unlinks costs one request per OSD per round rather
 * than one per file.
 */
public final class ObjectDeletions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectDeletions.class);
    /** Files kept in memory; more wait in the store only. */
    public static final int FILES_KEPT_MAX = 65_536;
    /** How long one OSD_DELETE_FILES may take (one synced RocksDB write at the OSD). */
    public static final long REQUEST_TIMEOUT_MS = 60_000;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("mrc-object-deletion")
            .build();

    private final Namespace namespace;
    private final MetadataStage metadataStage;
    private final CapabilityIssuer capabilities;
    private final UuidResolver osdAddresses;
    private final OsdServiceClient osds;
    private final long batchDelayMs;
    private final long retryDelayMs;
    private final Thread sender;
    private final Object lock = new Object();
    /** Files waiting for their OSDs, by file id, oldest first; guarded by {@link #lock}. */
    private final LinkedHashMap<String, DeletedFile> waiting = new LinkedHashMap<>();
    /** Some recorded files are only in the store (memory was full); guarded by {@link #lock}. */
    private boolean moreInStore;
    private volatile boolean closed;
    private final AtomicLong recorded = new AtomicLong();
    private final AtomicLong filesDone = new AtomicLong();
    private final AtomicLong requestsSent = new AtomicLong();
    private final AtomicLong requestsFailed = new AtomicLong();

    /**
     * @param osds a stub whose timeout bounds one request ({@link #REQUEST_TIMEOUT_MS})
     * @param batchDelayMs how long a round waits for more files before it sends (mrc.deletion.batchDelayMs)
     * @param retryDelayMs the rest after a round in which some OSD failed (mrc.deletion.retryDelayMs)
     */
    public ObjectDeletions(Namespace namespace, MetadataStage metadataStage, CapabilityIssuer capabilities,
            UuidResolver osdAddresses, OsdServiceClient osds, long batchDelayMs, long retryDelayMs) {
        this.namespace = namespace;
        this.metadataStage = metadataStage;
        this.capabilities = capabilities;
        this.osdAddresses = osdAddresses;
        this.osds = osds;
        this.batchDelayMs = batchDelayMs;
        this.retryDelayMs = retryDelayMs;
        this.sender = new Thread(this::run, "mrc-object-deletions");
        this.sender.setDaemon(true);
        namespace.onObjectDeletionsCommitted(this::committed);
    }

    /** Reads the deletions left from before a restart and starts sending. */
    public void start() {
        synchronized (lock) {
            moreInStore = true;
        }
        sender.start();
    }

    /** Files whose deletion a batch just recorded (the namespace's listener; any thread, quick). */
    private void committed(List<DeletedFile> files) {
        recorded.addAndGet(files.size());
        synchronized (lock) {
            boolean wasEmpty = waiting.isEmpty();
            for (DeletedFile file : files) {
                if (waiting.size() < FILES_KEPT_MAX) {
                    waiting.putIfAbsent(file.fileId(), file);
                } else {
                    moreInStore = true;
                }
            }
            // Wakes the sender only to start gathering or to send a full batch: a wake-up per unlink made every
            // unlink a round of its own (measured: +400 us of MRC CPU per unlink).
            if (wasEmpty || waiting.size() >= OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX) {
                lock.notifyAll();
            }
        }
    }

    /** What the status page shows, by its name there: recorded, done, requests sent and failed, waiting in memory. */
    public Map<String, Long> counters() {
        long waitingNow;
        synchronized (lock) {
            waitingNow = waiting.size();
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("deletedFilesRecorded", recorded.get());
        counters.put("deletedFilesDone", filesDone.get());
        counters.put("deleteFilesRequestsSent", requestsSent.get());
        counters.put("deleteFilesRequestsFailed", requestsFailed.get());
        counters.put("deletedFilesWaiting", waitingNow);
        return counters;
    }

    private void run() {
        while (!closed) {
            try {
                List<DeletedFile> batch = nextBatch();
                if (!batch.isEmpty() && !round(batch)) {
                    Thread.sleep(retryDelayMs);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("object deletions: a round failed; again in {} ms", retryDelayMs, e);
                try {
                    Thread.sleep(retryDelayMs);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** Waits until files wait, then up to batchDelayMs for a full batch; the oldest files, still kept waiting. */
    private List<DeletedFile> nextBatch() throws InterruptedException {
        synchronized (lock) {
            while (waiting.isEmpty() && !closed) {
                if (moreInStore) {
                    moreInStore = false;
                    List<DeletedFile> stored = namespace.objectDeletions(FILES_KEPT_MAX);
                    stored.forEach(file -> waiting.putIfAbsent(file.fileId(), file));
                    moreInStore = stored.size() >= FILES_KEPT_MAX;
                    if (!stored.isEmpty()) {
                        LOG.info("object deletions: {} deleted file(s) recorded in the store wait for their OSDs",
                                stored.size());
                    }
                    continue;
                }
                lock.wait();
            }
            long deadlineNanos = System.nanoTime() + batchDelayMs * 1_000_000L;
            long remainingNanos;
            while (waiting.size() < OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX && !closed
                    && (remainingNanos = deadlineNanos - System.nanoTime()) > 0) {
                lock.wait(Math.max(1, remainingNanos / 1_000_000L));
            }
            List<DeletedFile> batch = new ArrayList<>(Math.min(waiting.size(), OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX));
            for (DeletedFile file : waiting.values()) {
                if (batch.size() >= OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX) {
                    break;
                }
                batch.add(file);
            }
            return batch;
        }
    }

    /** One round over {@code batch}; false when some OSD failed (its files stay recorded and wait at the end). */
    private boolean round(List<DeletedFile> batch) {
        Map<String, DeleteFilesRequest.Builder> byOsd = new LinkedHashMap<>();
        for (DeletedFile file : batch) {
            FileRequest request = FileRequest.newBuilder().setFileId(file.fileId())
                    .setCredentials(capabilities.credentials(capabilities.issue(file.volumeId(), file.inode(),
                            AccessMode.ACCESS_MODE_READ_WRITE, file.truncateEpoch(), USER.getUsername(),
                            Optional.empty()), file.xlocs()))
                    .build();
            for (String osdUuid : osdsOf(file)) {
                byOsd.computeIfAbsent(osdUuid, uuid -> DeleteFilesRequest.newBuilder()).addFiles(request);
            }
        }
        Map<String, CompletableFuture<?>> sent = new LinkedHashMap<>();
        byOsd.forEach((osdUuid, request) -> sent.put(osdUuid, osdAddresses.resolve(osdUuid)
                .thenCompose(address -> osds.deleteFiles(address, USER, request.build()))));
        requestsSent.addAndGet(sent.size());
        Set<String> failedOsds = new HashSet<>();
        sent.forEach((osdUuid, reply) -> {
            try {
                reply.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof RpcTransportException) {
                    osdAddresses.invalidate(osdUuid);
                }
                failedOsds.add(osdUuid);
                requestsFailed.incrementAndGet();
                LOG.warn("object deletions: OSD {} did not take the deletion of {} file(s): {}; they stay recorded"
                        + " and are sent again", osdUuid, byOsd.get(osdUuid).getFilesCount(), cause.toString());
            }
        });
        List<DeletedFile> done = new ArrayList<>();
        Set<String> retry = new LinkedHashSet<>();
        for (DeletedFile file : batch) {
            if (osdsOf(file).stream().anyMatch(failedOsds::contains)) {
                retry.add(file.fileId());
            } else {
                done.add(file);
            }
        }
        boolean removed = done.isEmpty() || removeRecords(done);
        synchronized (lock) {
            if (removed) {
                done.forEach(file -> waiting.remove(file.fileId()));
            }
            for (String fileId : retry) {
                DeletedFile file = waiting.remove(fileId);
                if (file != null) {
                    waiting.put(fileId, file);
                }
            }
        }
        if (removed) {
            filesDone.addAndGet(done.size());
        }
        return removed && failedOsds.isEmpty();
    }

    /** Removes the records of files every OSD took, in one batch on the metadata stage; false when it failed. */
    private boolean removeRecords(List<DeletedFile> done) {
        try {
            metadataStage.submit("object deletions done", () -> {
                Transaction transaction = namespace.begin();
                done.forEach(file -> namespace.objectDeletionDone(transaction, file));
                transaction.commit();
                return null;
            }).join();
            return true;
        } catch (CompletionException e) {
            LOG.warn("object deletions: removing the records of {} file(s) the OSDs took failed: {}; they are sent"
                    + " again", done.size(), String.valueOf(e.getCause()));
            return false;
        }
    }

    /** Every OSD holding objects of the file: each of every replica (each deletes its own copy). */
    private static Set<String> osdsOf(DeletedFile file) {
        Set<String> uuids = new LinkedHashSet<>();
        for (Replica replica : file.xlocs().getReplicasList()) {
            uuids.addAll(replica.getOsdUuidsList());
        }
        return uuids;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            lock.notifyAll();
        }
        sender.interrupt();
        try {
            sender.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
