package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.rpc.ErrorType;

/** When storage failures make an OSD leave its chains, and how each failed request is answered. */
class StorageHealthTest {
    private final AtomicLong nowNanos = new AtomicLong(5_000_000_000L);
    private final StorageHealth health = new StorageHealth("osd-x", 3, nowNanos::get);

    @Test
    void aReplicatedFilesFailureNamesThisOsdAsTheMemberToReportAndAnUnreplicatedOnesIsInternal() {
        RpcException replicated = health.failed("v:1", "WriteObject", true, new IOException("disk says no"));
        assertThat(replicated.errorType()).isEqualTo(ErrorType.CHAIN_MEMBER_UNREACHABLE);
        assertThat(replicated.redirectToServiceUuid()).isEqualTo("osd-x");
        assertThat(replicated).hasMessageContaining("v:1").hasMessageContaining("disk says no");
        assertThat(health.failed("v:2", "ReadObject", false, new IOException("again")).errorType())
                .isEqualTo(ErrorType.INTERNAL);
        assertThat(health.failing()).as("two of three").isFalse();
        assertThat(health.failures()).isEqualTo(2);
    }

    @Test
    void failuresMaxWithinTheWindowMakeItFailingUntilRestartButSpreadOutOnesDoNot() {
        health.failed("v:1", "WriteObject", true, new IOException("1"));
        nowNanos.addAndGet((StorageHealth.WINDOW_MS + 1) * 1_000_000L);
        health.failed("v:1", "WriteObject", true, new IOException("2"));
        health.failed("v:1", "WriteObject", true, new IOException("3"));
        assertThat(health.failing()).as("the first is older than the window").isFalse();
        RpcException third = health.failed("v:1", "WriteObject", true, new IOException("4"));
        assertThat(health.failing()).isTrue();
        assertThat(third).hasMessageContaining("failing");
        nowNanos.addAndGet(10 * StorageHealth.WINDOW_MS * 1_000_000L);
        assertThat(health.failing()).as("sticky").isTrue();
    }

    @Test
    void zeroMeansNeverFailing() {
        StorageHealth never = new StorageHealth("osd-y", 0, nowNanos::get);
        for (int i = 0; i < 100; i++) {
            never.failed("v:1", "WriteObject", true, new IOException("x"));
        }
        assertThat(never.failing()).isFalse();
    }
}
