package org.xtreemfs.client.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;

class RetryPolicyTest {
    private final RetryPolicy policy = new RetryPolicy(4, 50, 300);

    // OVERLOADED is retried for any call; transport errors only for idempotent calls; errno errors never.
    @Test
    void retriesOnlyTransientFailures() {
        assertThat(policy.shouldRetry(RpcException.overloaded("queue full"), false, 1)).isTrue();
        assertThat(policy.shouldRetry(new RpcTransportException("closed", false), true, 1)).isTrue();
        assertThat(policy.shouldRetry(new RpcTransportException("closed", false), false, 1)).isFalse();
        assertThat(policy.shouldRetry(RpcException.errno(Errno.ENOENT, "no such file"), true, 1)).isFalse();
        assertThat(policy.shouldRetry(RpcException.internal("bug"), true, 1)).isFalse();
        assertThat(policy.shouldRetry(RpcException.authFailed("expired"), true, 1)).isFalse();
        assertThat(policy.shouldRetry(new IllegalStateException("local bug"), true, 1)).isFalse();
    }

    // The number of attempts is bounded, the first included.
    @Test
    void attemptsAreBounded() {
        assertThat(policy.shouldRetry(RpcException.overloaded("full"), true, 3)).isTrue();
        assertThat(policy.shouldRetry(RpcException.overloaded("full"), true, 4)).isFalse();
    }

    // Backoff doubles per attempt and stops at the maximum, even for huge attempt numbers.
    @Test
    void backoffDoublesUpToTheMaximum() {
        assertThat(policy.delayMs(1)).isEqualTo(50);
        assertThat(policy.delayMs(2)).isEqualTo(100);
        assertThat(policy.delayMs(3)).isEqualTo(200);
        assertThat(policy.delayMs(4)).isEqualTo(300);
        assertThat(policy.delayMs(90)).isEqualTo(300);
    }

    // A window bounds the retries by time: none once it is used up, and the last backoff ends at it.
    @Test
    void theWindowBoundsRetriesAndCutsTheLastBackoff() {
        RetryPolicy windowed = new RetryPolicy(100, 50, 2_000, 60_000);
        RpcTransportException refused = new RpcTransportException("connection refused", false);
        assertThat(windowed.shouldRetry(refused, true, 30, 59_999)).isTrue();
        assertThat(windowed.shouldRetry(refused, true, 30, 60_000)).isFalse();
        assertThat(windowed.delayMs(30, 10_000)).isEqualTo(2_000);
        assertThat(windowed.delayMs(30, 59_500)).isEqualTo(500);
        assertThat(new RetryPolicy(100, 50, 2_000, 0).shouldRetry(refused, true, 1, 0)).as("window 0: no retries")
                .isFalse();
        assertThatThrownBy(() -> new RetryPolicy(1, 1, 1, -1)).hasMessageContaining("-1");
    }

    // Inconsistent bounds are refused.
    @Test
    void refusesInvalidBounds() {
        assertThatThrownBy(() -> new RetryPolicy(0, 1, 1)).hasMessageContaining("0");
        assertThatThrownBy(() -> new RetryPolicy(1, 10, 5)).hasMessageContaining("10");
    }
}
