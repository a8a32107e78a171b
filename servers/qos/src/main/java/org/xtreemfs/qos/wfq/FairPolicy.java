package org.xtreemfs.qos.wfq;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The fair policy: one {@link FairQueue} flow per volume, specified and charged by a {@link FlowRule} (on an OSD, its
 * {@link ShareRule}). A
 * volume's flow follows its latest share (a changed capability reconfigures it on its next request, keeping
 * its tags). Flows of idle volumes are forgotten: a flow with nothing queued and no activity for
 * {@code flowIdleForgetNanos} is removed, and when the number of flows reaches the queue's request bound every
 * empty flow is, so memory stays O(requestsTotalMax) however many volumes come and go. Forgetting loses
 * nothing that matters after a long enough idle time: an idle reserved flow's next R tag is its arrival
 * anyway, and an idle flow's weight tag restarts at the virtual time.
 */
public final class FairPolicy<R> implements QueueingPolicy<R> {
    /** What the OSD (and the simulator, to match it) uses: a volume idle for 10 s is forgotten. */
    public static final long FLOW_IDLE_FORGET_NANOS_DEFAULT = 10_000_000_000L;

    private final FlowRule rule;
    private final FairQueue<R> queue;
    private final long flowIdleForgetNanos;
    private final Map<String, FlowState> flows = new HashMap<>();
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
        FlowState state = flows.get(volumeId);
        if (state == null) {
            if (flows.size() >= queue.bounds().requestsTotalMax()) {
                forgetEmptyFlows(nowNanos, 0);
            }
            state = new FlowState(spec);
            flows.put(volumeId, state);
            queue.configureFlow(volumeId, spec);
        } else if (!state.spec.equals(spec)) {
            state.spec = spec;
            queue.configureFlow(volumeId, spec);
        }
        state.lastActiveNanos = nowNanos;
        return queue.enqueue(volumeId, request, rule.costOf(payloadBytes), buffered, nowNanos);
    }

    @Override
    public void observeWriteBack(long dirtyBytes, long backgroundBytes) {
        queue.observeWriteBack(dirtyBytes, backgroundBytes);
    }

    @Override
    public Decision<R> next(long nowNanos) {
        if (lastSweepNanos == Long.MIN_VALUE || nowNanos - lastSweepNanos >= flowIdleForgetNanos) {
            lastSweepNanos = nowNanos;
            forgetEmptyFlows(nowNanos, flowIdleForgetNanos);
        }
        Decision<R> decision = queue.dequeue(nowNanos);
        if (decision instanceof Decision.Dispatch<R> dispatch) {
            flows.get(dispatch.flowId()).lastActiveNanos = nowNanos;
        }
        return decision;
    }

    /** Removes flows with nothing queued that have been idle for at least {@code idleNanos}. */
    private void forgetEmptyFlows(long nowNanos, long idleNanos) {
        for (Iterator<Map.Entry<String, FlowState>> it = flows.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, FlowState> entry = it.next();
            if (queue.size(entry.getKey()) == 0 && nowNanos - entry.getValue().lastActiveNanos >= idleNanos) {
                queue.removeFlow(entry.getKey());
                it.remove();
            }
        }
    }

    @Override
    public int size() {
        return queue.size();
    }

    /** Number of volumes this policy currently keeps state for (queued or recently active). */
    public int flowCount() {
        return flows.size();
    }

    /** Requests of {@code volumeId} waiting. */
    public int size(String volumeId) {
        return queue.size(volumeId);
    }

    @Override
    public List<R> removeAll() {
        List<R> all = new ArrayList<>(queue.size());
        for (String volumeId : flows.keySet()) {
            all.addAll(queue.removeFlow(volumeId));
        }
        flows.clear();
        return all;
    }

    public FlowRule rule() {
        return rule;
    }

    private static final class FlowState {
        private FlowSpec spec;
        private long lastActiveNanos;

        private FlowState(FlowSpec spec) {
            this.spec = spec;
        }
    }
}
