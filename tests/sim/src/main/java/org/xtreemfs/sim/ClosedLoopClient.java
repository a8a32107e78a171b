package org.xtreemfs.sim;

import java.util.function.LongUnaryOperator;
import org.xtreemfs.qos.device.IoRequest;

/**
 * A tenant that keeps {@code queueDepth} requests outstanding and issues the next one when one completes, until
 * it has issued {@code totalBytes} (0: no limit) or time reaches {@code untilNanos}. Metrics record each
 * request's cost as {@code costOfLengthBytes} computes it.
 */
final class ClosedLoopClient {
    /** Where requests go: the sink calls {@code done} with the completion time once the request is durable. */
    interface Sink {
        void issue(IoRequest request, IoOp.Completion done);
    }

    private final Simulation simulation;
    private final Workload workload;
    private final TenantMetrics metrics;
    private final long totalBytes;
    private final long untilNanos;
    private final Sink sink;
    private final LongUnaryOperator costOfLengthBytes;
    private final Phases phases;
    private long issuedBytes;

    ClosedLoopClient(Simulation simulation, Workload workload, TenantMetrics metrics, long totalBytes,
            long untilNanos, LongUnaryOperator costOfLengthBytes, Sink sink) {
        this(simulation, workload, metrics, totalBytes, untilNanos, costOfLengthBytes, Phases.ALWAYS, sink);
    }

    /** As above, issuing only while {@code phases} says the tenant is active (an idle slot waits for the next phase). */
    ClosedLoopClient(Simulation simulation, Workload workload, TenantMetrics metrics, long totalBytes,
            long untilNanos, LongUnaryOperator costOfLengthBytes, Phases phases, Sink sink) {
        this.phases = phases;
        this.simulation = simulation;
        this.workload = workload;
        this.metrics = metrics;
        this.totalBytes = totalBytes;
        this.untilNanos = untilNanos;
        this.sink = sink;
        this.costOfLengthBytes = costOfLengthBytes;
    }

    void start(int queueDepth) {
        for (int slot = 0; slot < queueDepth; slot++) {
            simulation.schedule(simulation.nowNanos(), this::issueNext);
        }
    }

    private void issueNext() {
        if ((totalBytes > 0 && issuedBytes >= totalBytes) || simulation.nowNanos() >= untilNanos) {
            return;
        }
        long activeNanos = phases.nextActiveNanos(simulation.nowNanos());
        if (activeNanos > simulation.nowNanos()) {
            if (activeNanos < untilNanos) {
                simulation.schedule(activeNanos, this::issueNext);
            }
            return;
        }
        IoRequest request = workload.next();
        issuedBytes += request.lengthBytes();
        long submitNanos = simulation.nowNanos();
        sink.issue(request, completionNanos -> {
            metrics.completed(submitNanos, completionNanos, request.lengthBytes(),
                    costOfLengthBytes.applyAsLong(request.lengthBytes()));
            issueNext();
        });
    }
}
