package org.xtreemfs.client.retry;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs an asynchronous call under a {@link RetryPolicy}, waiting between attempts without blocking a thread.
 * The call supplier is invoked once per attempt, so it must build fresh request state (e.g. a new data
 * buffer, the current XCap) each time. Invariant: at most {@code attemptsMax} attempts per call, each
 * started within the policy's window of the first.
 */
public final class Retrier {
    private final RetryPolicy policy;
    private final Executor executor;

    public Retrier(RetryPolicy policy, Executor executor) {
        this.policy = policy;
        this.executor = executor;
    }

    public RetryPolicy policy() {
        return policy;
    }

    /**
     * Calls {@code call} until it succeeds or fails finally; {@code beforeRetry} (may be null) sees each
     * failure that will be retried, e.g. to forget a cached address.
     */
    public <T> CompletableFuture<T> call(boolean idempotent, Supplier<CompletableFuture<T>> call,
            Consumer<Throwable> beforeRetry) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(1, System.nanoTime(), idempotent, call, beforeRetry, result);
        return result;
    }

    private <T> void attempt(int attempt, long firstAttemptNanos, boolean idempotent, Supplier<CompletableFuture<T>> call,
            Consumer<Throwable> beforeRetry, CompletableFuture<T> result) {
        CompletableFuture<T> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        future.whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
                return;
            }
            Throwable cause = unwrap(error);
            long elapsedMs = (System.nanoTime() - firstAttemptNanos) / 1_000_000L;
            if (!policy.shouldRetry(cause, idempotent, attempt, elapsedMs)) {
                result.completeExceptionally(cause);
                return;
            }
            if (beforeRetry != null) {
                beforeRetry.accept(cause);
            }
            Executor delayed = CompletableFuture.delayedExecutor(policy.delayMs(attempt, elapsedMs),
                    TimeUnit.MILLISECONDS, executor);
            delayed.execute(() -> attempt(attempt + 1, firstAttemptNanos, idempotent, call, beforeRetry, result));
        });
    }

    /** The root failure of a future chain, without CompletionException wrappers. */
    public static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
