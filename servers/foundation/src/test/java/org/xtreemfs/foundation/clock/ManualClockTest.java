package org.xtreemfs.foundation.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ManualClockTest {

    @Test
    void advanceMovesBothClocksByTheSameStep() {
        // Proves wall-clock and monotonic time advance together and only when told to.
        ManualClock clock = new ManualClock(1_000L);
        assertThat(clock.monotonicNanos()).isZero();
        clock.advance(Duration.ofMillis(250));
        assertThat(clock.wallClockMillis()).isEqualTo(1_250L);
        assertThat(clock.monotonicNanos()).isEqualTo(250_000_000L);
        assertThat(clock.monotonicMillis()).isEqualTo(250L);
    }

    @Test
    void negativeStepIsRejected() {
        // Proves the monotonic clock can never be moved backwards.
        ManualClock clock = new ManualClock();
        assertThatThrownBy(() -> clock.advance(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.monotonicNanos()).isZero();
    }

    @Test
    void wallClockJumpLeavesMonotonicTimeAlone() {
        // Proves an NTP-style wall-clock correction does not disturb durations.
        ManualClock clock = new ManualClock(5_000L);
        clock.advanceMillis(10);
        clock.setWallClockMillis(1_000L);
        assertThat(clock.wallClockMillis()).isEqualTo(1_000L);
        assertThat(clock.monotonicNanos()).isEqualTo(10_000_000L);
    }

    @Test
    void systemClockMonotonicTimeNeverDecreases() {
        // Proves SystemClock's monotonic reading is non-decreasing over consecutive reads.
        long previous = SystemClock.INSTANCE.monotonicNanos();
        for (int i = 0; i < 1_000; i++) {
            long now = SystemClock.INSTANCE.monotonicNanos();
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
    }
}
