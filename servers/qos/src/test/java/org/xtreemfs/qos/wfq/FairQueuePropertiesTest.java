package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class FairQueuePropertiesTest {

    @Property(tries = 300)
    void boundedFifoPerFlowAndNothingLostOrDuplicated(
            @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 9) Integer> operations) {
        // Proves any mix of enqueues and dequeues keeps the bounds, per-flow FIFO order and every request once.
        FairQueue<Integer> queue = new FairQueue<>(new QueueBounds(5, 12));
        String[] flowIds = {"reserved", "plain", "capped", "archive"};
        queue.configureFlow("reserved", FlowSpec.reserved(50, 2));
        queue.configureFlow("plain", FlowSpec.bestEffort(1));
        queue.configureFlow("capped", FlowSpec.bestEffort(3).withLimit(20));
        queue.configureFlow("archive", FlowSpec.cold(1));
        Map<String, ArrayDeque<Integer>> expected = new HashMap<>();
        for (String flowId : flowIds) {
            expected.put(flowId, new ArrayDeque<>());
        }
        long nowNanos = 0;
        int nextRequest = 0;
        for (int operation : operations) {
            nowNanos += 7_000_000;
            if (operation < 6) {
                String flowId = flowIds[operation % flowIds.length];
                int request = nextRequest++;
                if (queue.enqueue(flowId, request, 1 + operation, nowNanos).accepted()) {
                    expected.get(flowId).addLast(request);
                }
            } else {
                Decision<Integer> decision = queue.dequeue(nowNanos);
                if (decision instanceof Decision.Dispatch<Integer> dispatch) {
                    assertThat(dispatch.request()).isEqualTo(expected.get(dispatch.flowId()).pollFirst());
                } else if (decision instanceof Decision.WaitUntil<Integer> wait) {
                    assertThat(wait.eligibleNanos()).isGreaterThan(nowNanos);
                    assertThat(expected.get("capped")).isNotEmpty();
                } else {
                    assertThat(queue.size()).isZero();
                }
            }
            assertThat(queue.size()).isLessThanOrEqualTo(12);
            int total = 0;
            for (String flowId : flowIds) {
                assertThat(queue.size(flowId)).isEqualTo(expected.get(flowId).size()).isLessThanOrEqualTo(5);
                total += queue.size(flowId);
            }
            assertThat(queue.size()).isEqualTo(total);
        }
    }
}
