package org.xtreemfs.foundation.launcher;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot stop request between whoever wants the server stopped (the JVM shutdown hook, a test)
 * and the launcher thread, plus the launcher's acknowledgement that the server is closed.
 */
public final class ShutdownSignal {

    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch completed = new CountDownLatch(1);

    /** Asks the launcher to close the server; idempotent. */
    public void request() {
        requested.countDown();
    }

    public boolean isRequested() {
        return requested.getCount() == 0;
    }

    /**
     * Waits until the launcher has closed the server, at most {@code timeoutMs}.
     *
     * @return whether it finished in time
     */
    public boolean awaitCompletion(long timeoutMs) throws InterruptedException {
        return completed.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    void awaitRequest() throws InterruptedException {
        requested.await();
    }

    void markCompleted() {
        completed.countDown();
    }
}
