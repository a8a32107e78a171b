package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.wfq.ConstantCapacityDevice.Served;

class FairQueueTest {
    private static final long SECOND_NANOS = 1_000_000_000L;

    @Test
    void backloggedEqualCostFlowsShareByWeightWithinTwoPercent() {
        // Proves the weight phase splits a saturated device in proportion to the weights.
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
        long[] weights = {1, 2, 5, 12};
        List<String> flowIds = List.of("a", "b", "c", "d");
        for (int index = 0; index < weights.length; index++) {
            queue.configureFlow(flowIds.get(index), FlowSpec.bestEffort(weights[index]));
        }
        List<Served> served = new ConstantCapacityDevice(queue, now -> 1000)
                .runBacklogged(flowIds, 8, 1, Long.MAX_VALUE, 200_000);
        long weightSum = 20;
        for (int index = 0; index < weights.length; index++) {
            double share = (double) ConstantCapacityDevice.costServed(served, flowIds.get(index), 0, Long.MAX_VALUE)
                    / served.size();
            double expected = (double) weights[index] / weightSum;
            assertThat(share).as("share of %s", flowIds.get(index)).isCloseTo(expected,
                    org.assertj.core.data.Percentage.withPercentage(2));
        }
    }

    @Test
    void reservationsHoldInEverySecondEvenWhenCapacityDrops() {
        // Proves each reserved flow gets its reservation per 1 s window while capacity falls from 1000 to 700/s.
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
        long[] reservations = {100, 150, 250};
        List<String> flowIds = List.of("r1", "r2", "r3", "greedy");
        for (int index = 0; index < reservations.length; index++) {
            queue.configureFlow(flowIds.get(index), FlowSpec.reserved(reservations[index], 1));
        }
        queue.configureFlow("greedy", FlowSpec.bestEffort(50));
        long dropNanos = 30 * SECOND_NANOS;
        List<Served> served = new ConstantCapacityDevice(queue, now -> now < dropNanos ? 1000 : 700)
                .runBacklogged(flowIds, 16, 1, 60 * SECOND_NANOS, 1_000_000);
        for (int index = 0; index < reservations.length; index++) {
            for (long second = 1; second < 60; second++) {
                long cost = ConstantCapacityDevice.costServed(served, flowIds.get(index), second * SECOND_NANOS,
                        (second + 1) * SECOND_NANOS);
                assertThat(cost).as("%s in second %d", flowIds.get(index), second)
                        .isGreaterThanOrEqualTo(reservations[index] - 1);
            }
        }
        long greedyAfterDrop = ConstantCapacityDevice.costServed(served, "greedy", 31 * SECOND_NANOS,
                32 * SECOND_NANOS);
        assertThat(greedyAfterDrop).as("the best-effort flow absorbs the drop").isLessThan(700 - 500 + 10);
    }

    @Test
    void spareCapacityGoesByWeightOnTopOfReservations() {
        // Proves a reservation is a floor and the spare is shared by weight, not mClock's max(r, share).
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
        queue.configureFlow("reserved", FlowSpec.reserved(400, 1));
        queue.configureFlow("plain", FlowSpec.bestEffort(1));
        List<Served> served = new ConstantCapacityDevice(queue, now -> 1000)
                .runBacklogged(List.of("reserved", "plain"), 8, 1, 100 * SECOND_NANOS, 1_000_000);
        double reservedRate = ConstantCapacityDevice.costServed(served, "reserved", 0, 100 * SECOND_NANOS) / 100.0;
        assertThat(reservedRate).isCloseTo(400 + 300, org.assertj.core.data.Offset.offset(7.0));
    }

    @Test
    void limitIsNeverExceededInAnyWindow() {
        // Proves a limited flow gets at most limit*T plus one request in every window, even on an idle device.
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
        queue.configureFlow("capped", FlowSpec.bestEffort(10).withLimit(200));
        queue.configureFlow("other", FlowSpec.bestEffort(1));
        long cost = 3;
        List<Served> served = new ConstantCapacityDevice(queue, now -> 1000)
                .runBacklogged(List.of("capped", "other"), 8, cost, 20 * SECOND_NANOS, 1_000_000);
        List<Served> capped = served.stream().filter(one -> one.flowId().equals("capped")).toList();
        assertThat(capped).hasSizeGreaterThan(1000);
        for (int first = 0; first < capped.size(); first++) {
            for (int last = first; last < capped.size() && last < first + 200; last++) {
                long windowNanos = capped.get(last).startNanos() - capped.get(first).startNanos();
                long servedCost = (last - first + 1) * cost;
                assertThat((double) servedCost).isLessThanOrEqualTo(200.0 * windowNanos / SECOND_NANOS + cost);
            }
        }
        long otherCost = ConstantCapacityDevice.costServed(served, "other", 0, Long.MAX_VALUE);
        assertThat(otherCost).as("work-conserving: the rest of the device goes to the other flow")
                .isGreaterThan(20 * 700);
    }

    @Test
    void aLimitedFlowNextToABackloggedBestEffortFlowReachesMinOfLimitAndFairShareWithinTwoPercent() {
        // Proves the limit clock keeps its lag (mClock: L = max(L_prev + cost/limit, arrival)): re-basing it on
        // dispatch time loses the wait for the next decision and gave a flow with limit = reservation only
        // about 83 % of its reservation. Cases: {reservation, limit, expected rate} on a 1000/s device with a
        // weight-1 best-effort neighbour; expected = min(limit, reservation + half the spare).
        long[][] cases = {{300, 300, 300}, {0, 300, 300}, {0, 700, 500}, {200, 900, 600}, {450, 450, 450}};
        for (long[] one : cases) {
            FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
            FlowSpec spec = one[0] > 0 ? FlowSpec.reserved(one[0], 1) : FlowSpec.bestEffort(1);
            queue.configureFlow("limited", spec.withLimit(one[1]));
            queue.configureFlow("plain", FlowSpec.bestEffort(1));
            List<Served> served = new ConstantCapacityDevice(queue, now -> 1000)
                    .runBacklogged(List.of("limited", "plain"), 8, 1, 100 * SECOND_NANOS, 1_000_000);
            double rate = ConstantCapacityDevice.costServed(served, "limited", 0, 100 * SECOND_NANOS) / 100.0;
            assertThat(rate).as("rate of a flow with reservation %d and limit %d", one[0], one[1])
                    .isCloseTo((double) one[2], org.assertj.core.data.Percentage.withPercentage(2));
        }
    }

    @Test
    void onlyLimitedFlowsWaitingGivesTheNextEligibleTime() {
        // Proves a limited flow is not eligible early and the queue reports when it will be.
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(8, 8));
        queue.configureFlow("capped", FlowSpec.bestEffort(1).withLimit(10));
        queue.enqueue("capped", "first", 1, 0);
        queue.enqueue("capped", "second", 1, 0);
        assertThat(queue.dequeue(0)).isInstanceOf(Decision.Dispatch.class);
        Decision<String> waiting = queue.dequeue(1);
        assertThat(waiting).isEqualTo(new Decision.WaitUntil<String>(SECOND_NANOS / 10));
        assertThat(queue.dequeue(SECOND_NANOS / 10)).isInstanceOf(Decision.Dispatch.class);
        assertThat(queue.dequeue(SECOND_NANOS)).isInstanceOf(Decision.Empty.class);
    }

    @Test
    void equalTagsGoToTheFlowConfiguredFirstWhateverOrderTheyBecameBacklogged() {
        // Proves the tie rule survives scanning only backlogged flows: "late" becomes backlogged before "early",
        // and after the first busy period, every tag is equal again.
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(8, 8));
        queue.configureFlow("early", FlowSpec.bestEffort(1));
        queue.configureFlow("late", FlowSpec.bestEffort(1));
        queue.enqueue("late", "late-1", 1, 0);
        queue.enqueue("early", "early-1", 1, 0);
        assertThat(dispatchedFlow(queue.dequeue(0))).isEqualTo("early");
        assertThat(dispatchedFlow(queue.dequeue(0))).isEqualTo("late");
        assertThat(queue.dequeue(0)).isInstanceOf(Decision.Empty.class);
        queue.enqueue("late", "late-2", 1, 1);
        queue.enqueue("early", "early-2", 1, 1);
        assertThat(dispatchedFlow(queue.dequeue(1))).isEqualTo("early");
    }

    @Test
    void aDrainedQueueStartsANewBusyPeriodWithoutWeightDebt() {
        // Proves a flow's weight service in one busy period does not count against it in the next: "heavy" was
        // served 10 units before the queue drained; afterwards it ties with "light" again (and wins as the first
        // configured), where carrying its finish tag over would put it behind light's whole backlog.
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(8, 8));
        queue.configureFlow("heavy", FlowSpec.bestEffort(1));
        queue.configureFlow("light", FlowSpec.bestEffort(1));
        queue.enqueue("heavy", "big", 10, 0);
        assertThat(dispatchedFlow(queue.dequeue(0))).isEqualTo("heavy");
        assertThat(queue.dequeue(0)).isInstanceOf(Decision.Empty.class);
        queue.enqueue("light", "l1", 1, 1);
        queue.enqueue("light", "l2", 1, 1);
        queue.enqueue("heavy", "h1", 1, 1);
        assertThat(dispatchedFlow(queue.dequeue(1))).isEqualTo("heavy");
        assertThat(queue.size("heavy")).isZero();
    }

    private static String dispatchedFlow(Decision<String> decision) {
        assertThat(decision).isInstanceOf(Decision.Dispatch.class);
        return ((Decision.Dispatch<String>) decision).flowId();
    }

    @Test
    void bestEffortGetsItsWeightShareOfTheSpareWithinTheBound() {
        // Proves a low-weight best-effort flow is not starved while reservations use 80 % of the device.
        FairQueue<Long> queue = new FairQueue<>(new QueueBounds(64, 1024));
        queue.configureFlow("r1", FlowSpec.reserved(400, 100));
        queue.configureFlow("r2", FlowSpec.reserved(400, 100));
        queue.configureFlow("small", FlowSpec.bestEffort(1));
        List<Served> served = new ConstantCapacityDevice(queue, now -> 1000)
                .runBacklogged(List.of("r1", "r2", "small"), 8, 1, 50 * SECOND_NANOS, 1_000_000);
        // Spare 200/s split 100:100:1 gives the small flow 200/201 per second: about 2 requests per second.
        double spareShare = 200.0 / 201;
        long smallCost = ConstantCapacityDevice.costServed(served, "small", 0, 50 * SECOND_NANOS);
        assertThat((double) smallCost).isGreaterThanOrEqualTo(50 * spareShare - 2);
        // SFQ bound: between two services of "small", the others get at most c*(w_other/w_small) + c each.
        int gap = 0;
        int gapMax = 0;
        for (Served one : served) {
            if (one.flowId().equals("small")) {
                gap = 0;
            } else if (one.phase() == Decision.Phase.WEIGHT) {
                gapMax = Math.max(gapMax, ++gap);
            }
        }
        assertThat(gapMax).isLessThanOrEqualTo(2 * (100 + 1));
    }

    @Test
    void coldIsServedOnlyWhenNothingElseIsEligible() {
        // Proves cold work never displaces eligible work and still uses the capacity others leave.
        FairQueue<Long> busy = new FairQueue<>(new QueueBounds(64, 1024));
        busy.configureFlow("hot", FlowSpec.bestEffort(1));
        busy.configureFlow("archive", FlowSpec.cold(100));
        List<Served> starvedByDesign = new ConstantCapacityDevice(busy, now -> 1000)
                .runBacklogged(List.of("hot", "archive"), 8, 1, 10 * SECOND_NANOS, 100_000);
        assertThat(ConstantCapacityDevice.costServed(starvedByDesign, "archive", 0, Long.MAX_VALUE)).isZero();

        FairQueue<Long> spare = new FairQueue<>(new QueueBounds(64, 1024));
        spare.configureFlow("hot", FlowSpec.reserved(300, 1).withLimit(500));
        spare.configureFlow("archive", FlowSpec.cold(1));
        List<Served> served = new ConstantCapacityDevice(spare, now -> 1000)
                .runBacklogged(List.of("hot", "archive"), 8, 1, 10 * SECOND_NANOS, 100_000);
        long archiveCost = ConstantCapacityDevice.costServed(served, "archive", 0, 10 * SECOND_NANOS);
        assertThat(archiveCost).as("cold gets what the limited flow leaves").isBetween(10 * 500L - 20, 10 * 500L + 20);
    }

    @Test
    void fullQueuesRejectNamingTheFlowAndTheBound() {
        // Proves both bounds hold and the overload result says which flow hit which bound.
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(2, 3));
        queue.configureFlow("a", FlowSpec.bestEffort(1));
        queue.configureFlow("b", FlowSpec.bestEffort(1));
        assertThat(queue.enqueue("a", "a1", 1, 0).accepted()).isTrue();
        assertThat(queue.enqueue("a", "a2", 1, 0).accepted()).isTrue();
        EnqueueResult perFlow = queue.enqueue("a", "a3", 1, 0);
        assertThat(perFlow).isEqualTo(new EnqueueResult.Rejected("a", EnqueueResult.Reason.FLOW_QUEUE_FULL, 2));
        assertThat(((EnqueueResult.Rejected) perFlow).message()).contains("a").contains("2");
        assertThat(queue.enqueue("b", "b1", 1, 0).accepted()).isTrue();
        assertThat(queue.enqueue("b", "b2", 1, 0))
                .isEqualTo(new EnqueueResult.Rejected("b", EnqueueResult.Reason.QUEUE_FULL, 3));
        assertThat(queue.enqueue("nobody", "x", 1, 0))
                .isEqualTo(new EnqueueResult.Rejected("nobody", EnqueueResult.Reason.UNKNOWN_FLOW, 0));
        assertThat(queue.size()).isEqualTo(3);
    }

    @Test
    void invalidSpecsAndCostsAreRefusedNamingTheField() {
        // Proves configuration mistakes fail loudly with the offending field in the message.
        assertThatThrownBy(() -> FlowSpec.reserved(0, 1)).hasMessageContaining("reservationCostPerSecond");
        assertThatThrownBy(() -> new FlowSpec(FlowClass.COLD, 5, 1, 0))
                .hasMessageContaining("reservationCostPerSecond");
        assertThatThrownBy(() -> FlowSpec.reserved(100, 1).withLimit(50)).hasMessageContaining("limitCostPerSecond");
        assertThatThrownBy(() -> FlowSpec.bestEffort(0)).hasMessageContaining("weight");
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(2, 3));
        queue.configureFlow("a", FlowSpec.bestEffort(1));
        assertThatThrownBy(() -> queue.enqueue("a", "x", 0, 0)).hasMessageContaining("cost");
    }

    @Test
    void writesAreChargedByPayloadAndLargeRandomIosByTheDocumentedRule() {
        // Proves the cost rules: bytes as they are, 4 KiB I/Os rounded up per equivalent transfer size.
        assertThat(new CostRule.Bytes().costOf(131_072)).isEqualTo(131_072);
        CostRule.FourKibIos ssd = new CostRule.FourKibIos(4096);
        assertThat(ssd.costOf(4096)).isEqualTo(1);
        assertThat(ssd.costOf(4097)).isEqualTo(2);
        assertThat(ssd.costOf(1 << 20)).isEqualTo(256);
        CostRule.FourKibIos hdd = new CostRule.FourKibIos(1_000_000);
        assertThat(hdd.costOf(512)).isEqualTo(1);
        assertThat(hdd.costOf(1 << 20)).isEqualTo(3);
    }
}
