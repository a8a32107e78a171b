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

    // Inconsistent bounds are refused.
    @Test
    void refusesInvalidBounds() {
        assertThatThrownBy(() -> new RetryPolicy(0, 1, 1)).hasMessageContaining("0");
        assertThatThrownBy(() -> new RetryPolicy(1, 10, 5)).hasMessageContaining("10");
    }
}
