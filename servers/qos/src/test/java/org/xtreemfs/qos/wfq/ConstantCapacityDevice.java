package org.xtreemfs.qos.wfq;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * Test driver: a device serving one request at a time at a capacity (cost units per second) that may vary with
 * simulated time, fed by flows that keep a fixed number of requests queued. Records every dispatch.
 */
final class ConstantCapacityDevice {
    record Served(String flowId, long cost, long startNanos, Decision.Phase phase) {}

    private final FairQueue<Long> queue;
    private final LongUnaryOperator capacityCostPerSecondAt;
    private final List<Served> served = new ArrayList<>();
    private long nowNanos;

    ConstantCapacityDevice(FairQueue<Long> queue, LongUnaryOperator capacityCostPerSecondAt) {
        this.queue = queue;
        this.capacityCostPerSecondAt = capacityCostPerSecondAt;
    }

    /** Keeps every listed flow backlogged with {@code depth} requests of {@code cost} until endNanos. */
    List<Served> runBacklogged(List<String> flowIds, int depth, long cost, long endNanos, int dispatchesMax) {
        long sequence = 0;
        for (int dispatch = 0; dispatch < dispatchesMax && nowNanos < endNanos; dispatch++) {
            for (String flowId : flowIds) {
                while (queue.size(flowId) < depth) {
                    queue.enqueue(flowId, sequence++, cost, nowNanos);
                }
            }
            Decision<Long> decision = queue.dequeue(nowNanos);
            if (decision instanceof Decision.Dispatch<Long> dispatched) {
                served.add(new Served(dispatched.flowId(), dispatched.cost(), nowNanos, dispatched.phase()));
                nowNanos += dispatched.cost() * 1_000_000_000L / capacityCostPerSecondAt.applyAsLong(nowNanos);
            } else if (decision instanceof Decision.WaitUntil<Long> wait) {
                nowNanos = wait.eligibleNanos();
            } else {
                throw new AssertionError("queue empty although flows are backlogged");
            }
        }
        return served;
    }

    /** Cost served to flowId in [fromNanos, toNanos), by dispatch start time. */
    static long costServed(List<Served> served, String flowId, long fromNanos, long toNanos) {
        long cost = 0;
        for (Served one : served) {
            if (one.flowId().equals(flowId) && one.startNanos() >= fromNanos && one.startNanos() < toNanos) {
                cost += one.cost();
            }
        }
        return cost;
    }
}
