package org.xtreemfs.qos.wfq;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Arrival order, whatever the volume and cost: the baseline the fair policy is compared with. Never answers
 * {@link Decision.WaitUntil}. Bounded by {@code requestsTotalMax}; no per-volume bound, so one volume may fill
 * the queue (which is what makes FIFO unfair under overload).
 */
public final class FifoPolicy<R> implements QueueingPolicy<R> {
    private final int requestsTotalMax;
    private final ArrayDeque<Waiting<R>> queue = new ArrayDeque<>();

    public FifoPolicy(int requestsTotalMax) {
        if (requestsTotalMax < 1) {
            throw new IllegalArgumentException("requestsTotalMax must be >= 1, was " + requestsTotalMax);
        }
        this.requestsTotalMax = requestsTotalMax;
    }

    @Override
    public EnqueueResult enqueue(R request, String volumeId, VolumeShare share, long payloadBytes, long nowNanos) {
        if (queue.size() >= requestsTotalMax) {
            return new EnqueueResult.Rejected(volumeId, EnqueueResult.Reason.QUEUE_FULL, requestsTotalMax);
        }
        queue.addLast(new Waiting<>(request, volumeId, Math.max(1, payloadBytes)));
        return new EnqueueResult.Accepted();
    }

    @Override
    public Decision<R> next(long nowNanos) {
        Waiting<R> head = queue.pollFirst();
        if (head == null) {
            return new Decision.Empty<>();
        }
        return new Decision.Dispatch<>(head.volumeId(), head.request(), head.costBytes(), Decision.Phase.ARRIVAL);
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public List<R> removeAll() {
        List<R> all = new ArrayList<>(queue.size());
        for (Waiting<R> waiting : queue) {
            all.add(waiting.request());
        }
        queue.clear();
        return all;
    }

    private record Waiting<R>(R request, String volumeId, long costBytes) {}
}
