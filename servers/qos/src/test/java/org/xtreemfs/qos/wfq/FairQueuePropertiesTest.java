package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.SeededCases;

class FairQueuePropertiesTest {

    @Test
    void boundedFifoPerFlowAndNothingLostOrDuplicated() {
        // Proves any mix of enqueues and dequeues keeps the bounds, per-flow FIFO order and every request once.
        SeededCases.check(0xF1F0_0000L, 300, random -> checkFifo(
                SeededCases.listOf(random, 0, 400, element -> SeededCases.between(element, 0, 9))));
    }

    private static void checkFifo(List<Integer> operations) {
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

    @Test
    void reservationsAndLimitsHoldForAnyMixWhileCapacityVaries() {
        // Proves, for random reservations summing below the lowest capacity, every reserved flow gets its
        // reservation minus one request in every 1 s window and a limited flow never runs ahead of its limit.
        SeededCases.check(0x5E5E_0000L, 60, random -> checkReservationsAndLimits(
                SeededCases.listOf(random, 1, 5, element -> SeededCases.between(element, 5, 150)),
                SeededCases.between(random, 1, 4), SeededCases.between(random, 20, 300),
                SeededCases.between(random, 0, 10)));
    }

    private static void checkReservationsAndLimits(List<Integer> reservations, int cost, int limitOfCapped,
            int capacityDropTenths) {
        long reservationSum = reservations.stream().mapToLong(Integer::longValue).sum();
        long capacityHigh = Math.max(1000, 2 * reservationSum + limitOfCapped);
        long capacityLow = Math.max(reservationSum + 50, capacityHigh * (10 - capacityDropTenths / 2) / 10);
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(16, 256));
        List<String> flowIds = new ArrayList<>();
        for (int index = 0; index < reservations.size(); index++) {
            flowIds.add("reserved" + index);
            queue.configureFlow("reserved" + index, FlowSpec.reserved(reservations.get(index), 1 + index));
        }
        queue.configureFlow("greedy", FlowSpec.bestEffort(20));
        queue.configureFlow("capped", FlowSpec.bestEffort(20).withLimit(limitOfCapped));
        flowIds.add("greedy");
        flowIds.add("capped");
        long second = 1_000_000_000L;
        List<ConstantCapacityDevice.Served> served = new ConstantCapacityDevice(queue,
                now -> (now / (3 * second)) % 2 == 0 ? capacityHigh : capacityLow)
                .runBacklogged(flowIds, 4, cost, 12 * second, 2_000_000);
        for (int index = 0; index < reservations.size(); index++) {
            for (long window = 1; window < 12; window++) {
                long got = ConstantCapacityDevice.costServed(served, "reserved" + index, window * second,
                        (window + 1) * second);
                assertThat(got).as("reserved%d in second %d", index, window)
                        .isGreaterThanOrEqualTo(reservations.get(index) - 2L * cost);
            }
        }
        // The capped flow is backlogged from time 0, so by mClock's L tags its k-th dispatch starts no earlier
        // than (k - 1) * cost / limit: cumulative service never runs ahead of the limit by more than one request.
        long cappedCost = 0;
        for (ConstantCapacityDevice.Served one : served) {
            if (one.flowId().equals("capped")) {
                cappedCost += one.cost();
                assertThat((double) cappedCost).as("capped served by %d ns", one.startNanos())
                        .isLessThanOrEqualTo((double) limitOfCapped * one.startNanos() / second + cost);
            }
        }
    }
}
