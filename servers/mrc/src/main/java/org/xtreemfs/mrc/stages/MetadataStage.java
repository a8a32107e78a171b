package org.xtreemfs.mrc.stages;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stage.Stage;
import org.xtreemfs.foundation.stage.StageHandler;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.stage.StageShutdownException;

/**
 * Applies metadata operations one at a time: on its own thread, in arrival order, or — when
 * {@code applyOnCallerWhenIdle} and nothing waits or runs — right on the submitting thread.
 *
 * <p>Invariants: no two operations run concurrently (every apply, on the stage's thread or a caller's, holds
 * {@link #applyLock}), so each one's read-check-write against the KV store is atomic without further locks;
 * an operation never overtakes one that is queued (a caller applies only while the queue is empty); at most
 * {@code queueCapacity} operations wait (more are refused with OVERLOADED).
 *
 * <p>Why a caller may apply: an operation's cost here is mostly its two thread hand-offs (network thread to
 * this thread and back to the network thread for the answer), not its work, when a write batch is not synced
 * (tens of microseconds in RocksDB's memtable and the log's page cache). With synced batches each write waits
 * for the disk, which must not hold a network thread: the MRC then passes {@code false}.
 */
public final class MetadataStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataStage.class);

    /** One queued operation and the future its result completes. */
    record Task<T>(String procedure, MetadataOperation<T> operation, CompletableFuture<T> result) {
        void run() {
            try {
                result.complete(operation.apply());
            } catch (Exception | AssertionError e) {
                result.completeExceptionally(e);
            }
        }
    }

    private final Stage<Task<?>> stage;
    private final boolean applyOnCallerWhenIdle;
    /** Held by whoever applies an operation: the stage's thread or a submitting thread. */
    private final ReentrantLock applyLock = new ReentrantLock();
    /** Operations accepted into the queue and not yet applied: a caller may apply only while it is 0. */
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong appliedOnCaller = new AtomicLong();
    private final AtomicLong callerErrors = new AtomicLong();
    private volatile String lastCallerError = "";
    private volatile boolean closed;

    /** Every operation goes through the queue and the stage's thread. */
    public MetadataStage(int queueCapacity, Clock clock) {
        this(queueCapacity, clock, false);
    }

    public MetadataStage(int queueCapacity, Clock clock, boolean applyOnCallerWhenIdle) {
        this.applyOnCallerWhenIdle = applyOnCallerWhenIdle;
        this.stage = Stage.start("mrc-metadata", queueCapacity, 1, clock, new StageHandler<>() {
            @Override
            public void handle(Task<?> task) {
                applyLock.lock();
                try {
                    task.run();
                } finally {
                    queued.decrementAndGet();
                    applyLock.unlock();
                }
            }

            @Override
            public void onFailure(Task<?> task, Exception error) {
                // Only an Error gets here (run() catches exceptions); its caller must still get an answer.
                task.result().completeExceptionally(RpcException.internal("MRC failed " + task.procedure()
                        + ": " + error.getMessage()));
            }

            @Override
            public void onDiscarded(Task<?> task, StageShutdownException reason) {
                queued.decrementAndGet();
                task.result().completeExceptionally(RpcException.internal("MRC is shutting down: " + task.procedure()
                        + " was not applied"));
            }
        });
    }

    /**
     * Applies an operation on the calling thread when allowed and idle, otherwise queues it; the future fails
     * with OVERLOADED at once when the queue is full.
     */
    public <T> CompletableFuture<T> submit(String procedure, MetadataOperation<T> operation) {
        if (applyOnCallerWhenIdle && !closed && queued.get() == 0 && !applyLock.isHeldByCurrentThread()
                && applyLock.tryLock()) {
            try {
                // Re-checked under the lock: an operation queued meanwhile must not be overtaken.
                if (queued.get() == 0 && !closed) {
                    return applyHere(procedure, operation);
                }
            } finally {
                applyLock.unlock();
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        queued.incrementAndGet();
        try {
            if (!stage.offer(new Task<>(procedure, operation, result))) {
                queued.decrementAndGet();
                result.completeExceptionally(RpcException.overloaded("MRC metadata queue is full ("
                        + stage.queueCapacity() + " operations, mrc.metadata.queueCapacity); retry " + procedure
                        + " later"));
            }
        } catch (StageShutdownException e) {
            queued.decrementAndGet();
            result.completeExceptionally(RpcException.internal("MRC is shutting down: " + procedure + " refused"));
        }
        return result;
    }

    /** Runs with {@link #applyLock} held. An Error fails the operation and shows in the health line, as on the stage. */
    private <T> CompletableFuture<T> applyHere(String procedure, MetadataOperation<T> operation) {
        appliedOnCaller.incrementAndGet();
        try {
            return CompletableFuture.completedFuture(operation.apply());
        } catch (Exception | AssertionError e) {
            return CompletableFuture.failedFuture(e);
        } catch (Error e) {
            callerErrors.incrementAndGet();
            lastCallerError = e.toString();
            LOG.error("MRC failed {} on an error", procedure, e);
            return CompletableFuture.failedFuture(RpcException.internal("MRC failed " + procedure + ": " + e));
        }
    }

    /** Operations applied on their submitting thread since start (also counted in {@link #metrics()}). */
    public long appliedOnCaller() {
        return appliedOnCaller.get();
    }

    /** The stage's figures, with the operations applied on submitting threads counted as handled. */
    public StageMetrics metrics() {
        StageMetrics queue = stage.metrics();
        long errors = queue.errorCount() + callerErrors.get();
        String lastError = callerErrors.get() > 0 && queue.errorCount() == 0 ? lastCallerError : queue.lastError();
        return new StageMetrics(queue.stageName(), queue.queueLength(), queue.queueCapacity(),
                queue.workerThreadCount(), queue.handledCount() + appliedOnCaller.get(), queue.failedCount(),
                queue.rejectedCount(), queue.busyFraction(), errors, lastError);
    }

    @Override
    public void close() {
        closed = true;
        stage.close();
    }
}
