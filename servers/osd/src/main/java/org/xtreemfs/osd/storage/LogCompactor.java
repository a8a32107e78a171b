package org.xtreemfs.osd.storage;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LogStructuredStore}'s compaction on a thread of its own ({@code osd-log-compactor}) at no more than
 * {@code bytesPerSecond} (bytes read from the segment being compacted plus bytes copied; a token bucket with
 * {@link #BURST_SECONDS} of burst), so compaction cannot take the disk from foreground I/O: at 16 MiB/s on a disk of
 * 100 MiB/s it takes at most a sixth. Between steps it sleeps; it looks for work every {@link #IDLE_POLL_MS}.
 * It is never interrupted (an interrupt during file I/O would close the store's channels): {@link #close} wakes it
 * and waits for the step in progress.
 */
public final class LogCompactor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogCompactor.class);
    static final double BURST_SECONDS = 0.1;
    static final long IDLE_POLL_MS = 100;
    /** One step's budget at most (a step holds the store's lock for one record at a time). */
    private static final long STEP_BYTES_MAX = 1L << 20;

    private final LogStructuredStore store;
    private final long bytesPerSecond;
    private final Thread thread;
    private volatile boolean running = true;

    public LogCompactor(LogStructuredStore store, long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("compaction rate must be positive, was " + bytesPerSecond + " B/s");
        }
        this.store = store;
        this.bytesPerSecond = bytesPerSecond;
        this.thread = new Thread(this::run, "osd-log-compactor");
        thread.setDaemon(true);
    }

    public LogCompactor start() {
        thread.start();
        return this;
    }

    private void run() {
        double burstBytes = Math.max(bytesPerSecond * BURST_SECONDS, 1);
        double tokens = 0;
        long lastNanos = System.nanoTime();
        while (running) {
            try {
                if (!store.needsCompaction()) {
                    tokens = 0;
                    pause(IDLE_POLL_MS * 1_000_000);
                    lastNanos = System.nanoTime();
                    continue;
                }
                long nowNanos = System.nanoTime();
                tokens = Math.min(burstBytes, tokens + (nowNanos - lastNanos) * bytesPerSecond / 1e9);
                lastNanos = nowNanos;
                if (tokens < 1) {
                    pause((long) ((1 - tokens) * 1e9 / bytesPerSecond) + 1);
                    continue;
                }
                // A step may overrun its budget by one record; the debt is paid by waiting before the next.
                tokens -= store.compact((long) Math.min(tokens, STEP_BYTES_MAX));
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return;
                }
                LOG.warn("log compaction failed; retrying in a second", e);
                pause(1_000_000_000L);
            }
        }
    }

    private synchronized void pause(long nanos) {
        if (!running) {
            return;
        }
        try {
            wait(Math.max(1, nanos / 1_000_000));
        } catch (InterruptedException e) {
            running = false;
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            running = false;
            notifyAll();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
