package org.xtreemfs.qos.wfq;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.xtreemfs.qos.wfq.Decision.Phase;
import org.xtreemfs.qos.wfq.EnqueueResult.Reason;
import org.xtreemfs.qos.wfq.EnqueueResult.Rejected;

/**
 * mClock-style fair queue over flows (volumes). Not thread-safe: one thread (the OSD's QoS stage) owns it.
 *
 * <p>Each flow keeps FIFO order. {@link #dequeue(long)} decides in three steps:
 * <ol>
 *   <li>Constraint phase: among reserved flows whose head request has an R tag <= now, the smallest R tag.
 *       R tag = max(reservation clock, arrival); serving it advances the clock by cost / reservation. So a
 *       backlogged flow gets its reservation as long as the device delivers more than the sum of reservations,
 *       whatever the device's capacity is at the moment.</li>
 *   <li>Weight phase: among reserved and best-effort flows, the smallest P tag (start-time fair queuing:
 *       P = max(finish tag of the flow, virtual time), finish += cost / weight). Constraint-phase service does not
 *       advance P, so weights share what the reservations leave. Weight-phase service pays down a reserved
 *       flow's reservation debt but never moves its reservation clock past now (mClock's R-tag adjustment):
 *       service by weight never counts against a future reservation.</li>
 *   <li>Cold phase: cold flows, by P tag, only when no other request is eligible.</li>
 * </ol>
 * A flow whose head request's L tag is in the future is not eligible in any phase. L tags follow mClock:
 * L = max(L_prev + cost/limit, arrival), so the limit clock keeps the lag of a dispatch that came late (the
 * device was serving another request when the tag became due) instead of re-basing on the dispatch time, which
 * would lose that wait on every request (a flow with limit = reservation got about 83 % of it). Invariant: from
 * the arrival that starts a flow's backlog, its service up to any time t is at most limit·(t − arrival) plus one
 * request's cost; in a window that starts while the flow is behind its tags it may catch up by its lag.
 * Work-conserving: if any queued request is eligible, one is dispatched; otherwise {@link Decision.WaitUntil} names the earliest time one becomes eligible.
 *
 * <p>Buffered writes (enqueued with {@code buffered} true) are also subject to the queue's
 * {@link BufferedWritePacing}, if it has one: a flow whose head is a buffered write is not eligible in any phase
 * while the pacing is in debt (and the write-back, as last {@link #observeWriteBack observed}, is at or above its
 * background level), so the device time admitted into the host's write-back follows the device's rate
 * and the fair order (see there why). Other requests pass meanwhile; a reserved flow's buffered writes are paced
 * too and still go first when the pacing allows, so reservations below the pacing rate keep their rate.
 *
 * <p>Starvation bound (weight phase, SFQ): while flows f and g stay backlogged, their weight-phase service
 * differs by at most one maximal request of each: |W_f/w_f − W_g/w_g| <= c_f/w_f + c_g/w_g. The constraint
 * phase uses at most the sum of reservations, so whenever the device delivers more than that sum, a backlogged
 * best-effort flow receives at least its weight's share of the difference, minus that bound.
 *
 * <p>Costs are positive and at most {@link #COST_MAX} (4 GiB of bytes), which keeps cost × 1e9 within a long.
 * A decision scans the backlogged flows only (O(backlogged flows) per dequeue, O(1) per enqueue): flows that are
 * configured but have nothing queued cost nothing, so an OSD without overload pays for the one or few volumes
 * with requests waiting, not for every volume it has seen lately. Equal tags go to the flow configured first.
 */
public final class FairQueue<T> {
    public static final long COST_MAX = 1L << 32;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final EnqueueResult ACCEPTED = new EnqueueResult.Accepted();
    /** {@link Flow#lastActiveNanos} of a flow nothing was enqueued into yet. */
    private static final long NEVER_ACTIVE = Long.MIN_VALUE;

    private final QueueBounds bounds;
    /** Null: buffered writes are not paced. */
    private final BufferedWritePacing pacing;
    private final Map<String, Flow<T>> flows = new HashMap<>();
    /** Flows with requests queued, in no particular order (ties are broken by {@link Flow#order}). */
    private final List<Flow<T>> backlogged = new ArrayList<>();
    /** Order of the next flow configured; breaks ties between equal tags. */
    private long nextFlowOrder;
    private int size;
    /** Start tag of the last weight- or cold-phase dispatch; restarts at 0 when the queue drains. */
    private double virtualTime;
    /**
     * Counts busy periods (a drained queue starts the next). A flow's finish tag counts only in the busy period it
     * was set in, so starting a new period is O(1) instead of resetting every flow: without overload the queue
     * drains after nearly every request, and an O(flows) reset there was the fair policy's largest cost.
     */
    private long busyPeriod;

    public FairQueue(QueueBounds bounds) {
        this(bounds, null);
    }

    /** @param pacing paces buffered writes; null for none */
    public FairQueue(QueueBounds bounds, BufferedWritePacing pacing) {
        this.bounds = Objects.requireNonNull(bounds, "bounds");
        this.pacing = pacing;
    }

    /** Adds a flow or changes its parameters; queued requests and tags are kept. */
    public void configureFlow(String flowId, FlowSpec spec) {
        Objects.requireNonNull(flowId, "flowId");
        Objects.requireNonNull(spec, "spec");
        Flow<T> flow = flows.get(flowId);
        if (flow == null) {
            addFlow(flowId, spec);
        } else {
            flow.spec = spec;
        }
    }

    private Flow<T> addFlow(String flowId, FlowSpec spec) {
        Flow<T> flow = new Flow<>(flowId, spec, nextFlowOrder++);
        flows.put(flowId, flow);
        return flow;
    }

    /** Removes a flow and returns its queued requests in FIFO order (the caller fails or re-routes them). */
    public List<T> removeFlow(String flowId) {
        Flow<T> flow = flows.remove(flowId);
        if (flow == null) {
            return List.of();
        }
        List<T> requests = new ArrayList<>(flow.pending.size());
        takeRequests(flow, requests);
        return requests;
    }

    /** Removes every flow and returns all queued requests, each flow's in FIFO order. */
    public List<T> removeAllFlows() {
        List<T> requests = new ArrayList<>(size);
        for (Flow<T> flow : flows.values()) {
            takeRequests(flow, requests);
        }
        flows.clear();
        return requests;
    }

    /** Moves a removed flow's queued requests into {@code requests}. */
    private void takeRequests(Flow<T> flow, List<T> requests) {
        if (!flow.pending.isEmpty()) {
            removeBacklogged(flow);
        }
        for (Pending<T> pending : flow.pending) {
            requests.add(pending.request());
        }
        size -= flow.pending.size();
        flow.pending.clear();
    }

    /**
     * Removes the flows with nothing queued that have been idle for at least {@code idleNanos}: nothing enqueued
     * into them (through {@link #enqueue(String, FlowSpec, Object, long, boolean, long)}) or dispatched from them
     * since {@code nowNanos - idleNanos}; a flow only {@link #configureFlow configured} counts as idle since ever.
     * Forgetting loses nothing that matters after a long enough idle time: an idle reserved flow's next R tag is its
     * arrival anyway, and an idle flow's weight tag restarts at the virtual time.
     */
    public void forgetIdleFlows(long nowNanos, long idleNanos) {
        for (Iterator<Flow<T>> each = flows.values().iterator(); each.hasNext(); ) {
            Flow<T> flow = each.next();
            if (flow.pending.isEmpty() && (flow.lastActiveNanos == NEVER_ACTIVE
                    || nowNanos - flow.lastActiveNanos >= idleNanos)) {
                each.remove();
            }
        }
    }

    /** Flows this queue keeps (configured and not removed or forgotten). */
    public int flowCount() {
        return flows.size();
    }

    public EnqueueResult enqueue(String flowId, T request, long cost, long nowNanos) {
        return enqueue(flowId, request, cost, false, nowNanos);
    }

    /** @param buffered a write the host's write-back will acknowledge from memory: paced, if the queue paces */
    public EnqueueResult enqueue(String flowId, T request, long cost, boolean buffered, long nowNanos) {
        Flow<T> flow = flows.get(flowId);
        if (flow == null) {
            return new Rejected(flowId, Reason.UNKNOWN_FLOW, 0);
        }
        return enqueue(flow, request, cost, buffered, nowNanos);
    }

    /**
     * Enqueues into the flow {@code flowId} as specified by {@code spec}: a flow not yet known is added (first
     * forgetting every empty flow when the flows number the queue's request bound, so their memory stays
     * O(requestsTotalMax) however many flows come and go), one whose spec changed is reconfigured (keeping its
     * requests and tags), and the flow counts as active now (see {@link #forgetIdleFlows}), also when the request is
     * refused. One lookup of the flow per request: this is the fair policy's path for every request on an OSD, where
     * the id is each request's own copy of the volume's id and every lookup compares it character by character.
     */
    public EnqueueResult enqueue(String flowId, FlowSpec spec, T request, long cost, boolean buffered,
            long nowNanos) {
        Objects.requireNonNull(flowId, "flowId");
        Objects.requireNonNull(spec, "spec");
        Flow<T> flow = flows.get(flowId);
        if (flow == null) {
            if (flows.size() >= bounds.requestsTotalMax()) {
                forgetIdleFlows(nowNanos, 0);
            }
            flow = addFlow(flowId, spec);
        } else {
            flow.spec = spec; // unchanged or not, a store is cheaper than comparing the two
        }
        flow.lastActiveNanos = nowNanos;
        return enqueue(flow, request, cost, buffered, nowNanos);
    }

    private EnqueueResult enqueue(Flow<T> flow, T request, long cost, boolean buffered, long nowNanos) {
        Objects.requireNonNull(request, "request");
        if (cost < 1 || cost > COST_MAX) {
            throw new IllegalArgumentException("cost must be in [1, " + COST_MAX + "], was " + cost);
        }
        String flowId = flow.id;
        if (flow.pending.size() >= bounds.requestsPerFlowMax()) {
            return new Rejected(flowId, Reason.FLOW_QUEUE_FULL, bounds.requestsPerFlowMax());
        }
        if (size >= bounds.requestsTotalMax()) {
            return new Rejected(flowId, Reason.QUEUE_FULL, bounds.requestsTotalMax());
        }
        if (flow.pending.isEmpty()) {
            flow.backlogIndex = backlogged.size();
            backlogged.add(flow);
        }
        flow.pending.addLast(new Pending<>(request, cost, nowNanos, buffered && pacing != null));
        size++;
        return ACCEPTED;
    }

    /** Passes how full the host's write-back is to the pacing ({@link BufferedWritePacing#observeWriteBack}). */
    public void observeWriteBack(long dirtyBytes, long backgroundBytes) {
        if (pacing != null) {
            pacing.observeWriteBack(dirtyBytes, backgroundBytes);
        }
    }

    public Decision<T> dequeue(long nowNanos) {
        if (size == 0) {
            return new Decision.Empty<>();
        }
        Flow<T> constraintFlow = null;
        long smallestReservationTag = Long.MAX_VALUE;
        Flow<T> weightFlow = null;
        double smallestWeightTag = Double.POSITIVE_INFINITY;
        Flow<T> coldFlow = null;
        double smallestColdTag = Double.POSITIVE_INFINITY;
        long eligibleNanos = Long.MAX_VALUE;
        long pacedNanos = pacing == null ? Long.MIN_VALUE : pacing.eligibleNanos(nowNanos);
        for (int index = 0; index < backlogged.size(); index++) {
            Flow<T> flow = backlogged.get(index);
            // Not before its limit tag, nor, for a paced head, before the pacing is out of debt.
            long notBeforeNanos = flow.pending.peekFirst().paced()
                    ? Math.max(flow.limitTagNanos(), pacedNanos) : flow.limitTagNanos();
            if (notBeforeNanos > nowNanos) {
                eligibleNanos = Math.min(eligibleNanos, notBeforeNanos);
                continue;
            }
            double weightTag = flow.weightStartTag(virtualTime, busyPeriod);
            if (flow.spec.flowClass() == FlowClass.COLD) {
                if (precedesByWeight(weightTag, flow, smallestColdTag, coldFlow)) {
                    smallestColdTag = weightTag;
                    coldFlow = flow;
                }
                continue;
            }
            if (flow.spec.flowClass() == FlowClass.RESERVED) {
                long reservationTag = flow.reservationTagNanos();
                if (reservationTag <= nowNanos && precedes(reservationTag, flow, smallestReservationTag, constraintFlow)) {
                    smallestReservationTag = reservationTag;
                    constraintFlow = flow;
                }
            }
            if (precedesByWeight(weightTag, flow, smallestWeightTag, weightFlow)) {
                smallestWeightTag = weightTag;
                weightFlow = flow;
            }
        }
        if (constraintFlow != null) {
            return dispatch(constraintFlow, Phase.CONSTRAINT, nowNanos);
        }
        if (weightFlow != null) {
            return dispatch(weightFlow, Phase.WEIGHT, nowNanos);
        }
        if (coldFlow != null) {
            return dispatch(coldFlow, Phase.COLD, nowNanos);
        }
        return new Decision.WaitUntil<>(eligibleNanos);
    }

    private Decision<T> dispatch(Flow<T> flow, Phase phase, long nowNanos) {
        Pending<T> head = flow.pending.peekFirst();
        FlowSpec spec = flow.spec;
        if (spec.flowClass() == FlowClass.RESERVED) {
            long reservationTag = flow.reservationTagNanos();
            long incrementNanos = head.cost() * NANOS_PER_SECOND / spec.reservationCostPerSecond();
            flow.reservationClockNanos = phase == Phase.CONSTRAINT
                    ? reservationTag + incrementNanos
                    : Math.max(flow.reservationClockNanos, Math.min(reservationTag + incrementNanos, nowNanos));
        }
        if (phase != Phase.CONSTRAINT) {
            double startTag = flow.weightStartTag(virtualTime, busyPeriod);
            virtualTime = startTag;
            flow.weightFinishTag = startTag + (double) head.cost() / spec.weight();
            flow.weightFinishTagBusyPeriod = busyPeriod;
        }
        if (spec.limited()) {
            long limitIncrementNanos = ceilDiv(head.cost() * NANOS_PER_SECOND, spec.limitCostPerSecond());
            // mClock's rule: the next L tag follows this one, not the dispatch time, so a decision that comes
            // late (the device was busy) does not cost the flow its limit.
            flow.limitClockNanos = flow.limitTagNanos() + limitIncrementNanos;
        }
        if (head.paced()) {
            pacing.charge(head.cost(), nowNanos);
        }
        flow.pending.removeFirst();
        flow.lastActiveNanos = nowNanos;
        if (flow.pending.isEmpty()) {
            removeBacklogged(flow);
        }
        size--;
        if (size == 0) {
            restartVirtualTime();
        }
        return new Decision.Dispatch<>(flow.id, head.request(), head.cost(), phase);
    }

    /**
     * Weight and cold phases: a smaller start tag goes first; on equal start tags the flow whose own finish tag is
     * behind (served less in this busy period), then the one configured first. Why the middle rule: flows that were
     * not eligible for a while (held back by the shared {@link BufferedWritePacing}) all restart at the virtual
     * time, which unpaced requests kept moving meanwhile, so their start tags tie at every decision; breaking that
     * tie by configuration order alone gave the first flow every paced slot and the others none.
     */
    private boolean precedesByWeight(double tag, Flow<?> flow, double bestTag, Flow<?> best) {
        if (best == null || tag < bestTag) {
            return true;
        }
        if (tag > bestTag) {
            return false;
        }
        double finish = flow.weightFinishTag(busyPeriod);
        double bestFinish = best.weightFinishTag(busyPeriod);
        return finish < bestFinish || (finish == bestFinish && flow.order < best.order);
    }

    /** As above for integer tags (nanoseconds, beyond a double's exact range). */
    private static boolean precedes(long tag, Flow<?> flow, long bestTag, Flow<?> best) {
        return best == null || tag < bestTag || (tag == bestTag && flow.order < best.order);
    }

    /** Takes a flow off the backlogged list in O(1): the last one moves into its place. */
    private void removeBacklogged(Flow<T> flow) {
        Flow<T> last = backlogged.remove(backlogged.size() - 1);
        if (last != flow) {
            backlogged.set(flow.backlogIndex, last);
            last.backlogIndex = flow.backlogIndex;
        }
        flow.backlogIndex = -1;
    }

    /** A drained queue starts a new busy period: no flow carries weight credit or debt across it. */
    private void restartVirtualTime() {
        virtualTime = 0;
        busyPeriod++;
    }

    public int size() {
        return size;
    }

    public int size(String flowId) {
        Flow<T> flow = flows.get(flowId);
        return flow == null ? 0 : flow.pending.size();
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public QueueBounds bounds() {
        return bounds;
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }

    private record Pending<T>(T request, long cost, long arrivalNanos, boolean paced) {}

    private static final class Flow<T> {
        private final ArrayDeque<Pending<T>> pending = new ArrayDeque<>();
        private final String id;
        /** When the flow was configured, relative to the others: the earlier one wins a tie. */
        private final long order;
        /** Position in {@link FairQueue#backlogged} while it has requests queued, else -1. */
        private int backlogIndex = -1;
        private FlowSpec spec;
        private long reservationClockNanos = Long.MIN_VALUE;
        private long limitClockNanos = Long.MIN_VALUE;
        private double weightFinishTag;
        /** The busy period {@link #weightFinishTag} belongs to; in a later one the flow starts from 0. */
        private long weightFinishTagBusyPeriod;
        /** When a request was last enqueued into or dispatched from it, for {@link #forgetIdleFlows}. */
        private long lastActiveNanos = NEVER_ACTIVE;

        private Flow(String id, FlowSpec spec, long order) {
            this.id = id;
            this.spec = spec;
            this.order = order;
        }

        private long reservationTagNanos() {
            return Math.max(reservationClockNanos, pending.peekFirst().arrivalNanos());
        }

        /**
         * mClock's L tag of the head request: max(L_prev + cost/limit, arrival); eligible when <= now. An
         * unlimited flow has none (always eligible), whatever time its requests carry.
         */
        private long limitTagNanos() {
            if (!spec.limited()) {
                return Long.MIN_VALUE;
            }
            return Math.max(limitClockNanos, pending.peekFirst().arrivalNanos());
        }

        private double weightStartTag(double virtualTime, long currentBusyPeriod) {
            return Math.max(weightFinishTag(currentBusyPeriod), virtualTime);
        }

        /** The flow's finish tag in the current busy period (0 if it set none in it). */
        private double weightFinishTag(long currentBusyPeriod) {
            return weightFinishTagBusyPeriod == currentBusyPeriod ? weightFinishTag : 0;
        }
    }
}
