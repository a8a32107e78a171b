package org.xtreemfs.osd.stages;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.osd.storage.DeletionQueue;

/**
 * Moves due deletions from the persistent queue into the storage stage, so deleting a file's objects is
 * ordered with every other operation on that file ({@link StorageStage#offerDeletions}: those of files without
 * objects here run on this scheduler's thread, one metadata write for many). Polls every {@code pollMs}; a deletion
 * the storage stage cannot take now stays queued and is retried on the next poll.
 */
public final class DeletionScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeletionScheduler.class);

    private final DeletionQueue queue;
    private final StorageStage storage;
    private final long pollMs;
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "osd-deletion-scheduler");
        thread.setDaemon(true);
        return thread;
    });

    public DeletionScheduler(DeletionQueue queue, StorageStage storage, long pollMs) {
        this.queue = queue;
        this.storage = storage;
        this.pollMs = pollMs;
    }

    /** OSD_DELETE_FILES batches waiting for this scheduler's thread, at most {@link #BATCHES_WAITING_MAX}. */
    private final AtomicInteger batchesWaiting = new AtomicInteger();
    /** Batches of deleted files that may wait to be recorded; one more is refused OVERLOADED. */
    public static final int BATCHES_WAITING_MAX = 16;

    /**
     * Records a batch of deleted files (OSD_DELETE_FILES) in the queue on this scheduler's thread, so the synced
     * write never holds a network thread, and answers {@code call} once it is durable: OVERLOADED when
     * {@link #BATCHES_WAITING_MAX} batches wait already or the queue is full, the storage's error when it failed.
     */
    public void record(List<String> fileIds, RpcCall call) {
        if (batchesWaiting.incrementAndGet() > BATCHES_WAITING_MAX) {
            batchesWaiting.decrementAndGet();
            call.fail(RpcException.overloaded(BATCHES_WAITING_MAX
                    + " batches of deleted files wait to be recorded at this OSD; retry later"));
            return;
        }
        try {
            executor.execute(() -> {
                batchesWaiting.decrementAndGet();
                try {
                    if (queue.enqueueAll(fileIds)) {
                        call.respond(Empty.getDefaultInstance());
                    } else {
                        call.fail(RpcException.overloaded("OSD deletion queue cannot"
                                + " take " + fileIds.size() + " more files (osd.deletion.pendingMax); retry later"));
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.warn("deletion scheduler: recording {} deleted files failed", fileIds.size(), e);
                    call.fail(RpcException.internal("recording the deletion of "
                            + fileIds.size() + " files failed: " + e.getMessage()));
                }
            });
        } catch (RejectedExecutionException e) {
            batchesWaiting.decrementAndGet();
            call.fail(RpcException.internal("OSD is shutting down"));
        }
    }

    /** Starts polling at once, so deletions left from before a restart resume immediately when due. */
    public void start() {
        executor.scheduleWithFixedDelay(this::dispatchDue, 0, pollMs, TimeUnit.MILLISECONDS);
    }

    /** Hands every due deletion to storage; returns how many it handed over. */
    public int dispatchDue() {
        List<String> due = queue.takeDue();
        if (due.isEmpty()) {
            return 0;
        }
        try {
            List<String> refused = storage.offerDeletions(due);
            for (String fileId : refused) {
                queue.retryLater(fileId);
            }
            return due.size() - refused.size();
        } catch (RuntimeException e) {
            LOG.warn("deletion scheduler: dispatch failed; retrying in {} ms", pollMs, e);
            return 0;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RejectedExecutionException ignored) {
            // already shut down
        }
    }
}
