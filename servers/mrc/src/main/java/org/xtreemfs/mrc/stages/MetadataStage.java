package org.xtreemfs.mrc.stages;

import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stage.Stage;
import org.xtreemfs.foundation.stage.StageHandler;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.stage.StageShutdownException;

/**
 * The single thread that applies metadata operations, one at a time, in arrival order. Invariants: at
 * most {@code queueCapacity} operations wait (more are refused with OVERLOADED); no two operations run
 * concurrently, so each one's read-check-write against the KV store is atomic without locks.
 */
public final class MetadataStage implements AutoCloseable {
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

    public MetadataStage(int queueCapacity, Clock clock) {
        this.stage = Stage.start("mrc-metadata", queueCapacity, 1, clock, new StageHandler<>() {
            @Override
            public void handle(Task<?> task) {
                task.run();
            }

            @Override
            public void onFailure(Task<?> task, Exception error) {
                // Only an Error gets here (run() catches exceptions); its caller must still get an answer.
                task.result().completeExceptionally(RpcException.internal("MRC failed " + task.procedure()
                        + ": " + error.getMessage()));
            }

            @Override
            public void onDiscarded(Task<?> task, StageShutdownException reason) {
                task.result().completeExceptionally(RpcException.internal("MRC is shutting down: " + task.procedure()
                        + " was not applied"));
            }
        });
    }

    /** Queues an operation; the future fails with OVERLOADED at once when the queue is full. */
    public <T> CompletableFuture<T> submit(String procedure, MetadataOperation<T> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            if (!stage.offer(new Task<>(procedure, operation, result))) {
                result.completeExceptionally(RpcException.overloaded("MRC metadata queue is full ("
                        + stage.queueCapacity() + " operations, mrc.metadata.queueCapacity); retry " + procedure
                        + " later"));
            }
        } catch (StageShutdownException e) {
            result.completeExceptionally(RpcException.internal("MRC is shutting down: " + procedure + " refused"));
        }
        return result;
    }

    public StageMetrics metrics() {
        return stage.metrics();
    }

    @Override
    public void close() {
        stage.close();
    }
}
