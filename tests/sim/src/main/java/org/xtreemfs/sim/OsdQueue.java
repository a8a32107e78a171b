package org.xtreemfs.sim;

import java.util.ArrayDeque;
import org.xtreemfs.qos.wfq.Decision;
import org.xtreemfs.qos.wfq.EnqueueResult;
import org.xtreemfs.qos.wfq.FairQueue;
import org.xtreemfs.qos.wfq.FlowSpec;

/** The QoS stage of a simulated OSD: plain FIFO (what an OSD without QoS does) or the real fair queue. */
sealed interface OsdQueue {
    EnqueueResult offer(IoOp op, long nowNanos);

    Decision<IoOp> poll(long nowNanos);

    int size();

    /** Arrival order, one bounded queue for all tenants. */
    final class Fifo implements OsdQueue {
        private final ArrayDeque<IoOp> requests = new ArrayDeque<>();
        private final int requestsMax;

        Fifo(int requestsMax) {
            this.requestsMax = requestsMax;
        }

        @Override
        public EnqueueResult offer(IoOp op, long nowNanos) {
            if (requests.size() >= requestsMax) {
                return new EnqueueResult.Rejected(op.tenantId(), EnqueueResult.Reason.QUEUE_FULL, requestsMax);
            }
            requests.addLast(op);
            return new EnqueueResult.Accepted();
        }

        @Override
        public Decision<IoOp> poll(long nowNanos) {
            IoOp op = requests.pollFirst();
            return op == null
                    ? new Decision.Empty<>()
                    : new Decision.Dispatch<>(op.tenantId(), op, op.cost(), Decision.Phase.WEIGHT);
        }

        @Override
        public int size() {
            return requests.size();
        }
    }

    /** The library's fair queue, one flow per tenant. */
    final class Fair implements OsdQueue {
        private final FairQueue<IoOp> queue;

        Fair(FairQueue<IoOp> queue) {
            this.queue = queue;
        }

        void configure(String tenantId, FlowSpec spec) {
            queue.configureFlow(tenantId, spec);
        }

        @Override
        public EnqueueResult offer(IoOp op, long nowNanos) {
            return queue.enqueue(op.tenantId(), op, op.cost(), nowNanos);
        }

        @Override
        public Decision<IoOp> poll(long nowNanos) {
            return queue.dequeue(nowNanos);
        }

        @Override
        public int size() {
            return queue.size();
        }
    }
}
