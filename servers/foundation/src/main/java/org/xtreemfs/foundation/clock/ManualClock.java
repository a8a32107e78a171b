package org.xtreemfs.foundation.clock;

import java.time.Duration;

/**
 * A clock that moves only when told to. Wall-clock and monotonic time advance together, so a
 * test sees consistent durations on both. Thread-safe.
 */
public final class ManualClock implements Clock {

    private long wallClockMillis;
    private long monotonicNanos;

    /** Starts at the given wall-clock time and at monotonic time zero. */
    public ManualClock(long startWallClockMillis) {
        this.wallClockMillis = startWallClockMillis;
        this.monotonicNanos = 0;
    }

    /** Starts at 2026-01-01T00:00:00Z so timestamps in tests are realistic and reproducible. */
    public ManualClock() {
        this(1_767_225_600_000L);
    }

    @Override
    public synchronized long wallClockMillis() {
        return wallClockMillis;
    }

    @Override
    public synchronized long monotonicNanos() {
        return monotonicNanos;
    }

    /** Moves both clocks forward; time never runs backwards, so a negative step is a bug. */
    public synchronized void advance(Duration step) {
        if (step.isNegative()) {
            throw new IllegalArgumentException("clock step must not be negative: " + step);
        }
        long stepNanos = step.toNanos();
        monotonicNanos += stepNanos;
        wallClockMillis += stepNanos / 1_000_000L;
    }

    public void advanceMillis(long stepMs) {
        advance(Duration.ofMillis(stepMs));
    }

    /** Models an NTP correction: only wall-clock time jumps, in either direction. */
    public synchronized void setWallClockMillis(long newWallClockMillis) {
        this.wallClockMillis = newWallClockMillis;
    }
}
