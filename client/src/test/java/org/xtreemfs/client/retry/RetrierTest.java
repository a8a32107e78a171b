package org.xtreemfs.client.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;

class RetrierTest {
    private final Retrier retrier = new Retrier(new RetryPolicy(3, 0, 0), Runnable::run);

    // A call that is overloaded twice succeeds on the third attempt, and each retry is announced.
    @Test
    void retriesUntilSuccess() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        List<Throwable> announced = new ArrayList<>();
        CompletableFuture<String> result = retrier.call(false, () -> attempts.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(RpcException.overloaded("full"))
                : CompletableFuture.completedFuture("done"), announced::add);
        assertThat(result.get()).isEqualTo("done");
        assertThat(attempts).hasValue(3);
        assertThat(announced).hasSize(2);
    }

    // After the attempt bound the last failure is returned unwrapped.
    @Test
    void givesUpAfterTheBound() {
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = retrier.call(true, () -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(RpcException.overloaded("still full"));
        }, null);
        assertThatThrownBy(result::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("still full");
        assertThat(attempts).hasValue(3);
    }

    // A final error is not repeated.
    @Test
    void finalErrorsAreNotRepeated() {
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = retrier.call(true, () -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(RpcException.errno(Errno.EEXIST, "exists: /a"));
        }, null);
        assertThatThrownBy(result::get).hasRootCauseMessage("exists: /a");
        assertThat(attempts).hasValue(1);
    }
}
