package org.xtreemfs.sim;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.wfq.Decision;
import org.xtreemfs.qos.wfq.EnqueueResult;
import org.xtreemfs.qos.wfq.FlowRule;
import org.xtreemfs.qos.wfq.QueueingPolicy;
import org.xtreemfs.qos.wfq.StreamContinuity;

/** The QoS stage of a simulated OSD: plain FIFO (what an OSD without QoS does) or the OSD's fair policy. */
sealed interface OsdQueue {
    EnqueueResult offer(IoOp op, long nowNanos);

    Decision<IoOp> poll(long nowNanos);

    /** How full the device's host write-back is, just before {@link #poll} (as the OSD's QoS stage reports it). */
    default void observeWriteBack(long dirtyBytes, long backgroundBytes) {}

    int size();

    /** Stealable reads waiting (not started), as a replica reports them to peers that may steal. */
    int queuedReads();

    /** Gives up the oldest waiting stealable read to a stealing peer. */
    Optional<IoOp> removeOldestRead();

    /**
     * Arrival order, one bounded queue for all tenants, from which a peer may steal reads (the FAST replica
     * scenarios); the OSD scenario's FIFO variant runs the OSD's own {@code FifoPolicy} through {@link Policy}.
     */
    final class Fifo implements OsdQueue {
        private final ArrayDeque<IoOp> requests = new ArrayDeque<>();
        private final int requestsMax;
        private int reads;

        Fifo(int requestsMax) {
            this.requestsMax = requestsMax;
        }

        @Override
        public EnqueueResult offer(IoOp op, long nowNanos) {
            if (requests.size() >= requestsMax) {
                return new EnqueueResult.Rejected(op.tenantId(), EnqueueResult.Reason.QUEUE_FULL, requestsMax);
            }
            requests.addLast(op);
            reads += stealable(op) ? 1 : 0;
            return new EnqueueResult.Accepted();
        }

        @Override
        public Decision<IoOp> poll(long nowNanos) {
            IoOp op = requests.pollFirst();
            if (op == null) {
                return new Decision.Empty<>();
            }
            reads -= stealable(op) ? 1 : 0;
            return new Decision.Dispatch<>(op.tenantId(), op, op.cost(), Decision.Phase.ARRIVAL);
        }

        @Override
        public int size() {
            return requests.size();
        }

        private static boolean stealable(IoOp op) {
            return op.stealable() && op.request().kind() == IoKind.READ;
        }

        @Override
        public int queuedReads() {
            return reads;
        }

        @Override
        public Optional<IoOp> removeOldestRead() {
            for (Iterator<IoOp> waiting = requests.iterator(); waiting.hasNext(); ) {
                IoOp op = waiting.next();
                if (stealable(op)) {
                    waiting.remove();
                    reads--;
                    return Optional.of(op);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * A policy the OSD's QoS stage runs (qos.wfq.FairPolicy or FifoPolicy, the same classes), one flow per
     * tenant; for the fair policy the scenario's rule supplies each tenant's flow (weights and limits the
     * capability does not carry) and charges with the scenario's cost rule. It keeps its requests: taking one
     * out would break the fair queue's tags, so no read stealing.
     */
    final class Policy implements OsdQueue {
        private final QueueingPolicy<IoOp> policy;
        private final FlowRule chargeRule;
        /** Each tenant is one stream (its region), as a file is on the OSD; bounded like the OSD's. */
        private final StreamContinuity continuity = new StreamContinuity(4096);

        /** A policy that is given each request's payload (FIFO ignores it). */
        Policy(QueueingPolicy<IoOp> policy) {
            this(policy, null);
        }

        /**
         * @param chargeRule charges each request as the OSD's QoS stage does ({@link FlowRule#chargedBytes}: on a
         *     byte-charged OSD a request that does not continue its tenant's previous one pays a positioning)
         */
        Policy(QueueingPolicy<IoOp> policy, FlowRule chargeRule) {
            this.policy = policy;
            this.chargeRule = chargeRule;
        }

        @Override
        public EnqueueResult offer(IoOp op, long nowNanos) {
            long payloadBytes = op.request().lengthBytes();
            long chargedBytes = chargeRule == null ? payloadBytes : chargeRule.chargedBytes(payloadBytes,
                    continuity.continues(op.tenantId(), op.request().offsetBytes(), payloadBytes));
            boolean buffered = op.request().kind() == IoKind.WRITE && !op.request().synced();
            return policy.enqueue(op, op.tenantId(), VolumeShare.BEST_EFFORT, chargedBytes, buffered, nowNanos);
        }

        @Override
        public void observeWriteBack(long dirtyBytes, long backgroundBytes) {
            policy.observeWriteBack(dirtyBytes, backgroundBytes);
        }

        @Override
        public Decision<IoOp> poll(long nowNanos) {
            return policy.next(nowNanos);
        }

        @Override
        public int size() {
            return policy.size();
        }

        @Override
        public int queuedReads() {
            return 0;
        }

        @Override
        public Optional<IoOp> removeOldestRead() {
            return Optional.empty();
        }
    }
}
