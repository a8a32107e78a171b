package org.xtreemfs.qos.wfq;

import java.util.List;
import java.util.Objects;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The fair policy: one {@link FairQueue} flow per volume, specified and charged by a {@link FlowRule} (on an OSD, its
 * {@link ShareRule}). A volume's flow follows its latest share (a changed capability reconfigures it on its next
 * request, keeping its tags). Flows of idle volumes are forgotten ({@link FairQueue#forgetIdleFlows}): a flow with
 * nothing queued and no activity for {@code flowIdleForgetNanos} is removed, and when the number of flows reaches the
 * queue's request bound every empty flow is, so memory stays O(requestsTotalMax) however many volumes come and go.
 *
 * <p>The queue keeps each flow's spec and activity itself, so a request costs one lookup of its volume (an OSD
 * compares each request's own copy of the volume id character by character, and under the OSD's C1-only JIT a
 * lookup of a 36-character id was a good part of the policy's cost; tests/bench/README.md, "QoS stage overhead").
 */
public final class FairPolicy<R> implements QueueingPolicy<R> {
    /** What the OSD (and the simulator, to match it) uses: a volume idle for 10 s is forgotten. */
    public static final long FLOW_IDLE_FORGET_NANOS_DEFAULT = 10_000_000_000L;

    private final FlowRule rule;
    private final FairQueue<R> queue;
    private final long flowIdleForgetNanos;
    private long lastSweepNanos = Long.MIN_VALUE;

    public FairPolicy(FlowRule rule, QueueBounds bounds, long flowIdleForgetNanos) {
        this(rule, bounds, flowIdleForgetNanos, null);
    }

    /** @param pacing paces buffered writes ({@link BufferedWritePacing}); null for none */
    public FairPolicy(FlowRule rule, QueueBounds bounds, long flowIdleForgetNanos, BufferedWritePacing pacing) {
        this.rule = Objects.requireNonNull(rule, "rule");
        this.queue = new FairQueue<>(bounds, pacing);
        if (flowIdleForgetNanos < 0) {
            throw new IllegalArgumentException("flowIdleForgetNanos must be >= 0, was " + flowIdleForgetNanos);
        }
        this.flowIdleForgetNanos = flowIdleForgetNanos;
    }

    @Override
    public EnqueueResult enqueue(R request, String volumeId, VolumeShare share, long payloadBytes, long nowNanos) {
        return enqueue(request, volumeId, share, payloadBytes, false, nowNanos);
    }

    @Override
    public EnqueueResult enqueue(R request, String volumeId, VolumeShare share, long payloadBytes, boolean buffered,
            long nowNanos) {
        Objects.requireNonNull(volumeId, "volumeId");
        FlowSpec spec = rule.flowSpec(volumeId, Objects.requireNonNull(share, "share"));
        return queue.enqueue(volumeId, spec, request, rule.costOf(payloadBytes), buffered, nowNanos);
    }

    @Override
    public void observeWriteBack(long dirtyBytes, long backgroundBytes) {
        queue.observeWriteBack(dirtyBytes, backgroundBytes);
    }

    @Override
    public Decision<R> next(long nowNanos) {
        if (lastSweepNanos == Long.MIN_VALUE || nowNanos - lastSweepNanos >= flowIdleForgetNanos) {
            lastSweepNanos = nowNanos;
            queue.forgetIdleFlows(nowNanos, flowIdleForgetNanos);
        }
        return queue.dequeue(nowNanos);
    }

    @Override
    public int size() {
        return queue.size();
    }

    /** Number of volumes this policy currently keeps state for (queued or recently active). */
    public int flowCount() {
        return queue.flowCount();
    }

    /** Requests of {@code volumeId} waiting. */
    public int size(String volumeId) {
        return queue.size(volumeId);
    }

    @Override
    public List<R> removeAll() {
        return queue.removeAllFlows();
    }

    public FlowRule rule() {
        return rule;
    }
}
