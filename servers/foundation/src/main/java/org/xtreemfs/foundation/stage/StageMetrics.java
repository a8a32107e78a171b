package org.xtreemfs.foundation.stage;

/**
 * A point-in-time view of one stage, for status pages and heartbeats.
 *
 * @param busyFraction share of worker time spent handling messages during the last completed load
 *     period, 0.0..1.0 (see {@link Stage#sampleBusyFraction()})
 */
public record StageMetrics(String stageName, int queueLength, int queueCapacity,
        int workerThreadCount, long handledCount, long failedCount, long rejectedCount,
        double busyFraction) {
}
