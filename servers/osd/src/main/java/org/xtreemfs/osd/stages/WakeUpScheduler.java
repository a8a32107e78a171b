package org.xtreemfs.osd.stages;

/**
 * Runs an action once at a monotonic time: how the QoS stage wakes itself when its policy answers "nothing now,
 * ask again at t". The server uses {@link ExecutorWakeUps}; tests run due actions by hand with a ManualClock.
 */
@FunctionalInterface
public interface WakeUpScheduler {

    /** Runs {@code action} once at (or soon after) monotonic time {@code atNanos}; the handle cancels it. */
    Cancellable schedule(long atNanos, Runnable action);

    @FunctionalInterface
    interface Cancellable {
        /** The action will not run if it has not started; harmless after it ran. */
        void cancel();
    }
}
