package org.xtreemfs.osd.stages;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.xtreemfs.foundation.clock.Clock;

/**
 * Wake-ups on one daemon thread, delays measured against the server's clock. Cancelled wake-ups are removed at
 * once, so the executor holds at most the wake-ups the stage keeps (one).
 */
public final class ExecutorWakeUps implements WakeUpScheduler, AutoCloseable {
    private final Clock clock;
    private final ScheduledThreadPoolExecutor executor;

    public ExecutorWakeUps(Clock clock, String threadName) {
        this.clock = clock;
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(long atNanos, Runnable action) {
        long delayNanos = Math.max(0, atNanos - clock.monotonicNanos());
        ScheduledFuture<?> future = executor.schedule(action, delayNanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
