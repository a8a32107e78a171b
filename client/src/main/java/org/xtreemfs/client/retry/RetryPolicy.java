package org.xtreemfs.client.retry;

import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * Which failed calls are repeated and after how long. OVERLOADED means a bounded queue rejected the request
 * before executing it, so it is always safe to repeat; a transport error (no answer) leaves open whether the
 * request ran, so it is repeated only for idempotent calls. Everything else is final. Pure.
 */
public record RetryPolicy(int attemptsMax, long backoffInitialMs, long backoffMaxMs) {
    public RetryPolicy {
        if (attemptsMax < 1) {
            throw new IllegalArgumentException("attemptsMax must be at least 1: " + attemptsMax);
        }
        if (backoffInitialMs < 0 || backoffMaxMs < backoffInitialMs) {
            throw new IllegalArgumentException("backoff bounds invalid: initial " + backoffInitialMs + " ms, max "
                    + backoffMaxMs + " ms");
        }
    }

    /** True when a call that failed with {@code failure} on attempt {@code attempt} (1-based) is repeated. */
    public boolean shouldRetry(Throwable failure, boolean idempotent, int attempt) {
        if (attempt >= attemptsMax) {
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
}
