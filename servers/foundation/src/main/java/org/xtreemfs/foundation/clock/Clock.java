package org.xtreemfs.foundation.clock;

/**
 * Every server reads time through this seam so a simulator can replace it. Wall-clock time may
 * jump (NTP); use {@link #monotonicNanos()} for timeouts and rates.
 */
public interface Clock {

    /** Milliseconds since the Unix epoch; for timestamps stored or sent to other processes. */
    long wallClockMillis();

    /** Nanoseconds from an arbitrary origin; never decreases; only differences are meaningful. */
    long monotonicNanos();

    /** Convenience for durations measured in milliseconds. */
    default long monotonicMillis() {
        return monotonicNanos() / 1_000_000L;
    }
}
