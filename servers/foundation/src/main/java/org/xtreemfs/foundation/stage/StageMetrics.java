package org.xtreemfs.foundation.stage;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A point-in-time view of one stage, for status pages and heartbeats.
 *
 * @param busyFraction share of worker time spent handling messages during the last completed load
 *     period, 0.0..1.0 (see {@link Stage#sampleBusyFraction()})
 * @param errorCount handlers that ended in an {@link Error} (out of memory, stack overflow, ...): the stage
 *     failed their message and kept its worker, but the process may be short of memory or otherwise unwell
 * @param lastError the last such error ({@code Throwable.toString()}), empty when there was none
 */
public record StageMetrics(String stageName, int queueLength, int queueCapacity,
        int workerThreadCount, long handledCount, long failedCount, long rejectedCount,
        double busyFraction, long errorCount, String lastError) {

    public StageMetrics {
        lastError = lastError == null ? "" : lastError;
    }

    /** A stage that has never seen an {@link Error}. */
    public StageMetrics(String stageName, int queueLength, int queueCapacity, int workerThreadCount,
            long handledCount, long failedCount, long rejectedCount, double busyFraction) {
        this(stageName, queueLength, queueCapacity, workerThreadCount, handledCount, failedCount, rejectedCount,
                busyFraction, 0, "");
    }

    /**
     * The health line a status page shows for these stages: {@code ok}, or {@code degraded: } followed by each
     * stage that survived an {@link Error}, so an operator sees at once that the process needs attention
     * (restart it when the cause is memory) although it still answers.
     */
    public static String health(StageMetrics... stages) {
        return health(Arrays.asList(stages));
    }

    public static String health(List<StageMetrics> stages) {
        String troubled = stages.stream().filter(stage -> stage.errorCount() > 0)
                .map(stage -> "stage " + stage.stageName() + " failed " + stage.errorCount()
                        + (stage.errorCount() == 1 ? " message" : " messages") + " on an error (last: "
                        + stage.lastError() + ")")
                .collect(Collectors.joining("; "));
        return troubled.isEmpty() ? "ok" : "degraded: " + troubled;
    }
}
