package org.xtreemfs.osd.stages;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.osd.stages.StorageWork.DeleteObjects;
import org.xtreemfs.osd.storage.DeletionQueue;

/**
 * Moves due deletions from the persistent queue into the storage stage, so deleting a file's objects is
 * ordered with every other operation on that file. Polls every {@code pollMs}; a deletion the storage stage
 * cannot take now stays queued and is retried on the next poll.
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

    /** Starts polling at once, so deletions left from before a restart resume immediately when due. */
    public void start() {
        executor.scheduleWithFixedDelay(this::dispatchDue, 0, pollMs, TimeUnit.MILLISECONDS);
    }

    /** Hands every due deletion to storage; returns how many it handed over. */
    public int dispatchDue() {
        int dispatched = 0;
        try {
            for (String fileId : queue.takeDue()) {
                if (storage.offer(new DeleteObjects(fileId))) {
                    dispatched++;
                } else {
                    queue.retryLater(fileId);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("deletion scheduler: dispatch failed; retrying in {} ms", pollMs, e);
        }
        return dispatched;
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
