package org.xtreemfs.mrc.stages;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

    @Test
    void anIdleStageAppliesOnTheCallersThread() throws Exception {
        try (MetadataStage stage = new MetadataStage(4, new ManualClock(), true)) {
            CompletableFuture<Thread> ranOn = stage.submit("here", Thread::currentThread);
            assertThat(ranOn).isCompleted();
            assertThat(ranOn.get()).isSameAs(Thread.currentThread());
            assertThat(stage.appliedOnCaller()).isEqualTo(1);
            assertThat(stage.metrics().handledCount()).isEqualTo(1);
        }
        try (MetadataStage stage = new MetadataStage(4, new ManualClock(), false)) {
            assertThat(stage.submit("queued", Thread::currentThread).get(10, TimeUnit.SECONDS))
                    .isNotSameAs(Thread.currentThread());
        }
    }

    @Test
    void whileAnOperationRunsOrWaitsTheNextOneIsQueuedInOrderAndNoneOverlap() throws Exception {
        // A caller applying an operation holds the stage: the next submit must queue (not run beside it), and
        // while that one waits, a later submit must queue behind it (not overtake it on its caller's thread).
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger mostConcurrent = new AtomicInteger();
        StringBuffer order = new StringBuffer();
        try (MetadataStage stage = new MetadataStage(8, new ManualClock(), true)) {
            AtomicReference<CompletableFuture<String>> first = new AtomicReference<>();
            Thread caller = new Thread(() -> first.set(stage.submit("first", () -> {
                mostConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                running.countDown();
                release.await(10, TimeUnit.SECONDS);
                order.append("1");
                concurrent.decrementAndGet();
                return Thread.currentThread().getName();
            })), "caller-thread");
            caller.start();
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> second = stage.submit("second", () -> {
                mostConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                order.append("2");
                concurrent.decrementAndGet();
                return Thread.currentThread().getName();
            });
            assertThat(second).isNotDone();
            release.countDown();
            caller.join(10_000);
            CompletableFuture<String> third = stage.submit("third", () -> {
                order.append("3");
                return Thread.currentThread().getName();
            });
            assertThat(first.get().get(10, TimeUnit.SECONDS)).isEqualTo("caller-thread");
            assertThat(second.get(10, TimeUnit.SECONDS)).startsWith("stage-mrc-metadata");
            third.get(10, TimeUnit.SECONDS);
            assertThat(order.toString()).isEqualTo("123");
            assertThat(mostConcurrent.get()).isEqualTo(1);
        }
    }
}
