package org.xtreemfs.osd.stages;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

    /** Batches of deleted files that may wait to be recorded; one more is refused OVERLOADED. */
    public static final int BATCHES_WAITING_MAX = 16;

    /** How a recorded batch is answered: OSD_DELETE_FILES's call, or a test's. */
    public interface Answer {
        /** The batch is durable (or every file of it was pending already). */
        void recorded();

        void failed(RpcException error);
    }

    /** One batch waiting for this scheduler's thread. */
    private record WaitingBatch(List<String> fileIds, Answer answer) { }

    /**
     * OSD_DELETE_FILES batches waiting for this scheduler's thread, at most {@link #BATCHES_WAITING_MAX}; guarded by
     * itself. A record task is scheduled when the first one arrives and takes all that wait then.
     */
    private final ArrayDeque<WaitingBatch> batchesWaiting = new ArrayDeque<>();

    /** {@link #record(List, Answer)} answering an OSD_DELETE_FILES call. */
    public void record(List<String> fileIds, RpcCall call) {
        record(fileIds, new Answer() {
            @Override
            public void recorded() {
                call.respond(Empty.getDefaultInstance());
            }

            @Override
            public void failed(RpcException error) {
                call.fail(error);
            }
        });
    }

    /**
     * Records a batch of deleted files (OSD_DELETE_FILES) in the queue on this scheduler's thread, so the synced
     * write never holds a network thread, and answers once it is durable: OVERLOADED when {@link #BATCHES_WAITING_MAX}
     * batches wait already or the queue is full, the storage's error when it failed. The batches that wait when the
     * thread gets to them are recorded together with ONE synced write ({@link DeletionQueue#enqueueBatches}): calls
     * that arrive while a write syncs share the next one, as the MRC's group commit does.
     */
    public void record(List<String> fileIds, Answer answer) {
        boolean first;
        synchronized (batchesWaiting) {
            first = batchesWaiting.isEmpty();
            if (batchesWaiting.size() < BATCHES_WAITING_MAX) {
                batchesWaiting.add(new WaitingBatch(fileIds, answer));
                answer = null;
            }
        }
        if (answer != null) {
            answer.failed(RpcException.overloaded(BATCHES_WAITING_MAX
                    + " batches of deleted files wait to be recorded at this OSD; retry later"));
            return;
        }
        if (!first) {
            return; // the task scheduled for the first waiting batch takes this one too
        }
        try {
            executor.execute(this::recordWaiting);
        } catch (RejectedExecutionException e) {
            for (WaitingBatch batch : takeWaiting()) {
                batch.answer().failed(RpcException.internal("OSD is shutting down"));
            }
        }
    }

    private List<WaitingBatch> takeWaiting() {
        synchronized (batchesWaiting) {
            List<WaitingBatch> taken = new ArrayList<>(batchesWaiting);
            batchesWaiting.clear();
            return taken;
        }
    }

    /** Records every waiting batch with one synced write and answers each (this scheduler's thread). */
    private void recordWaiting() {
        List<WaitingBatch> batches = takeWaiting();
        if (batches.isEmpty()) {
            return;
        }
        boolean[] taken;
        try {
            taken = queue.enqueueBatches(batches.stream().map(WaitingBatch::fileIds).toList());
        } catch (IOException | RuntimeException e) {
            int files = batches.stream().mapToInt(batch -> batch.fileIds().size()).sum();
            LOG.warn("deletion scheduler: recording {} deleted files of {} requests failed", files, batches.size(), e);
            for (WaitingBatch batch : batches) {
                batch.answer().failed(RpcException.internal("recording the deletion of "
                        + batch.fileIds().size() + " files failed: " + e.getMessage()));
            }
            return;
        }
        for (int i = 0; i < batches.size(); i++) {
            WaitingBatch batch = batches.get(i);
            if (taken[i]) {
                batch.answer().recorded();
            } else {
                batch.answer().failed(RpcException.overloaded("OSD deletion queue cannot take " + batch.fileIds()
                        .size() + " more files (osd.deletion.pendingMax); retry later"));
            }
        }
    }

    /** Starts polling at once, so deletions left from before a restart resume immediately when due. */
    public void start() {
        executor.scheduleWithFixedDelay(this::poll, 0, pollMs, TimeUnit.MILLISECONDS);
    }

    /** One poll; an exception escaping it would end the periodic task, i.e. every later deletion. */
    private void poll() {
        try {
            dispatchDue();
        } catch (RuntimeException e) {
            LOG.warn("deletion scheduler: a poll failed; again in {} ms", pollMs, e);
        }
    }

    /**
     * Hands every due deletion to storage, {@link DeletionQueue#TAKE_MAX} at a time (again while a take was full and
     * storage took all of it); returns how many it handed over. Every taken entry ends handed over or waiting again:
     * one storage refused or failed to take is due again at once, so a failure midway strands none "in progress".
     */
    public int dispatchDue() {
        int handedOver = 0;
        while (true) {
            List<String> due = queue.takeDue();
            if (due.isEmpty()) {
                return handedOver;
            }
            List<String> refused;
            try {
                refused = storage.offerDeletions(due);
            } catch (RuntimeException e) {
                // offerDeletions answers per file and should not throw; if it does, which files it handed over is
                // unknown: all go back. One that was handed over is then deleted a second time, after the first
                // (FileAccessOrder keeps a file's work in order), finding nothing; one that completed meanwhile is
                // not pending any more (retryLater ignores it).
                LOG.warn("deletion scheduler: dispatch of {} deletions failed; retrying in {} ms", due.size(), pollMs,
                        e);
                due.forEach(queue::retryLater);
                return handedOver;
            }
            refused.forEach(queue::retryLater);
            handedOver += due.size() - refused.size();
            if (due.size() < DeletionQueue.TAKE_MAX || !refused.isEmpty()) {
                return handedOver;
            }
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
        // Batches whose record task never ran: answered, not left to the caller's timeout (nothing of them recorded).
        for (WaitingBatch batch : takeWaiting()) {
            batch.answer().failed(RpcException.internal("OSD is shutting down"));
        }
    }
}
