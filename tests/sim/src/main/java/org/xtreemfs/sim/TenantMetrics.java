package org.xtreemfs.sim;

import java.util.Arrays;

/** What one tenant got: bytes and cost per 1-second window, latencies, rejections, last completion. */
final class TenantMetrics {
    static final long WINDOW_NANOS = 1_000_000_000L;
    private static final int SAMPLES_MAX = 50_000_000;

    private final String tenantId;
    private long[] bytesPerWindow = new long[64];
    private long[] costPerWindow = new long[64];
    private long[] latencyNanos = new long[1024];
    private int latencyCount;
    private long requests;
    private long bytes;
    private long rejected;
    private long lastCompletionNanos;

    TenantMetrics(String tenantId) {
        this.tenantId = tenantId;
    }

    String tenantId() {
        return tenantId;
    }

    void completed(long submitNanos, long completionNanos, long lengthBytes, long cost) {
        int window = (int) (completionNanos / WINDOW_NANOS);
        if (window >= bytesPerWindow.length) {
            int length = Math.max(window + 1, bytesPerWindow.length * 2);
            bytesPerWindow = Arrays.copyOf(bytesPerWindow, length);
            costPerWindow = Arrays.copyOf(costPerWindow, length);
        }
        bytesPerWindow[window] += lengthBytes;
        costPerWindow[window] += cost;
        if (latencyCount == latencyNanos.length) {
            if (latencyCount >= SAMPLES_MAX) {
                throw new IllegalStateException("more than " + SAMPLES_MAX + " latency samples for " + tenantId);
            }
            latencyNanos = Arrays.copyOf(latencyNanos, latencyCount * 2);
        }
        latencyNanos[latencyCount++] = completionNanos - submitNanos;
        requests++;
        bytes += lengthBytes;
        lastCompletionNanos = Math.max(lastCompletionNanos, completionNanos);
    }

    void rejected() {
        rejected++;
    }

    long bytesInWindow(int window) {
        return window < bytesPerWindow.length ? bytesPerWindow[window] : 0;
    }

    long costInWindow(int window) {
        return window < costPerWindow.length ? costPerWindow[window] : 0;
    }

    /** Cost served in windows [fromWindow, toWindow). */
    long costBetween(int fromWindow, int toWindow) {
        long cost = 0;
        for (int window = fromWindow; window < toWindow; window++) {
            cost += costInWindow(window);
        }
        return cost;
    }

    long requests() {
        return requests;
    }

    long bytes() {
        return bytes;
    }

    long rejectedRequests() {
        return rejected;
    }

    long lastCompletionNanos() {
        return lastCompletionNanos;
    }

    /** Latency quantile in nanoseconds (nearest rank), 0 without samples. */
    long latencyQuantileNanos(double quantile) {
        if (latencyCount == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(latencyNanos, latencyCount);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(quantile * latencyCount) - 1;
        return sorted[Math.max(0, Math.min(latencyCount - 1, rank))];
    }
}
