package org.xtreemfs.mrc.stages;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.ErrorType;

class MetadataStageTest {
    @Test
    void fullQueueIsOverloadedAndOperationsRunOneAtATime() throws Exception {
        // With the worker busy and the queue (capacity 1) full, the next submit fails with OVERLOADED.
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (MetadataStage stage = new MetadataStage(1, new ManualClock())) {
            CompletableFuture<?> first = stage.submit("first", () -> {
                running.countDown();
                release.await(10, TimeUnit.SECONDS);
                return Empty.getDefaultInstance();
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<?> queued = stage.submit("queued", Empty::getDefaultInstance);
            CompletableFuture<?> rejected = stage.submit("rejected", Empty::getDefaultInstance);
            ExecutionException error = org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
                    () -> rejected.get(10, TimeUnit.SECONDS));
            assertThat(((RpcException) error.getCause()).errorType()).isEqualTo(ErrorType.OVERLOADED);
            assertThat(error.getCause().getMessage()).contains("mrc.metadata.queueCapacity");
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(Empty.getDefaultInstance());
            assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(Empty.getDefaultInstance());
        }
    }

    @Test
    void failuresCompleteTheFutureExceptionally() throws Exception {
        // An operation's exception reaches the caller unchanged.
        try (MetadataStage stage = new MetadataStage(4, new ManualClock())) {
            CompletableFuture<?> failed = stage.submit("boom", () -> {
                throw RpcException.errno(2, "gone");
            });
            ExecutionException error = org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
                    () -> failed.get(10, TimeUnit.SECONDS));
            assertThat(error.getCause()).hasMessage("gone");
        }
    }
}
