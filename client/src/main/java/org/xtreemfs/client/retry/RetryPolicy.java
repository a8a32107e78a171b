package org.xtreemfs.client.retry;

import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * Which failed calls are repeated and after how long. OVERLOADED means a bounded queue rejected the request
 * before executing it, so it is always safe to repeat; a transport error (no answer: connection refused or
 * reset, timeout) leaves open whether the request ran, so it is repeated only for calls that may be repeated
 * (idempotent ones, and MRC changes, which the MRC applies exactly once). Everything else is an answer and
 * final. A call is repeated while fewer than {@code attemptsMax} attempts were made and less than
 * {@code windowMs} passed since its first attempt, so a server restart shorter than the window is a pause;
 * the backoff doubles from {@code backoffInitialMs} to {@code backoffMaxMs} and the last one is cut to end at
 * the window. Pure.
 */
public record RetryPolicy(int attemptsMax, long backoffInitialMs, long backoffMaxMs, long windowMs) {
    public RetryPolicy {
        if (attemptsMax < 1) {
            throw new IllegalArgumentException("attemptsMax must be at least 1: " + attemptsMax);
        }
        if (backoffInitialMs < 0 || backoffMaxMs < backoffInitialMs) {
            throw new IllegalArgumentException("backoff bounds invalid: initial " + backoffInitialMs + " ms, max "
                    + backoffMaxMs + " ms");
        }
        if (windowMs < 0) {
            throw new IllegalArgumentException("windowMs must not be negative: " + windowMs);
        }
    }

    /** A policy bounded by attempts alone. */
    public RetryPolicy(int attemptsMax, long backoffInitialMs, long backoffMaxMs) {
        this(attemptsMax, backoffInitialMs, backoffMaxMs, Long.MAX_VALUE);
    }

    /** True when a call that failed with {@code failure} on attempt {@code attempt} (1-based) is repeated. */
    public boolean shouldRetry(Throwable failure, boolean idempotent, int attempt) {
        return shouldRetry(failure, idempotent, attempt, 0);
    }

    /** The same, {@code elapsedMs} after the first attempt started: never once the window is used up. */
    public boolean shouldRetry(Throwable failure, boolean idempotent, int attempt, long elapsedMs) {
        if (attempt >= attemptsMax || elapsedMs >= windowMs) {
            return false;
        }
        if (failure instanceof RpcTransportException) {
            return idempotent;
        }
        return failure instanceof RpcException rpc && rpc.errorType() == ErrorType.OVERLOADED;
    }

    /** Delay before attempt {@code attempt + 1}: initial * 2^(attempt-1), capped at the maximum. */
    public long delayMs(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt is 1-based: " + attempt);
        }
        int doublings = Math.min(attempt - 1, 30);
        long delay = backoffInitialMs << doublings;
        return delay < 0 || delay > backoffMaxMs ? backoffMaxMs : delay;
    }

    /** The same, {@code elapsedMs} after the first attempt: at most what is left of the window. */
    public long delayMs(int attempt, long elapsedMs) {
        return Math.max(0, Math.min(delayMs(attempt), windowMs - elapsedMs));
    }
}
