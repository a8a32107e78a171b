package org.xtreemfs.osd.calibration;

import java.util.concurrent.ThreadFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.osd.storage.EmulatedDevice;

/**
 * The time a calibration runs in: the clock its phases and an emulated device read, how a caller of the emulated
 * device waits for the model's completion, and where the clients' threads come from.
 *
 * <p>{@link #real} is the only timing of {@code xtreemfs-osd --calibrate}: the real clock, parking, plain threads.
 * A test may instead run the same threads on a virtual clock that moves only while every client waits for the
 * device, so that the calibration's host is never late whatever the machine's load (a late host measures
 * itself, not the emulation; servers/osd/README.md, "Calibration"); the waiter and the thread factory are what
 * such a clock needs to see who is waiting and who is still running.
 */
public record CalibrationTiming(Clock clock, EmulatedDevice.Waiter waiter, ThreadFactory threads) {
    /** Real time: {@code clock}, {@link EmulatedDevice#parking} on it, and plain threads. */
    public static CalibrationTiming real(Clock clock) {
        return new CalibrationTiming(clock, EmulatedDevice.parking(clock), Thread::new);
    }
}
