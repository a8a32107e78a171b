package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BufferedWritePacingTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void anIdleBucketLetsTheBurstThroughThenPacesAtTheRate() {
        // 1000 cost units a second, 100 ms of burst: 100 units at once and one overdraw, then one unit per ms.
        BufferedWritePacing pacing = new BufferedWritePacing(1000, 100 * MS);
        long now = 10 * SECOND;
        int admitted = 0;
        while (pacing.eligibleNanos(now) <= now) {
            pacing.charge(10, now);
            admitted++;
        }
        assertThat(admitted).as("10-unit writes admitted at once from an idle bucket: 100 ms, then one overdraw")
                .isEqualTo(11);
        assertThat(pacing.eligibleNanos(now)).isEqualTo(now + 10 * MS);
        assertThat(pacing.eligibleNanos(now + 4 * MS)).isEqualTo(now + 10 * MS);
        assertThat(pacing.eligibleNanos(now + 11 * MS)).isEqualTo(now + 11 * MS);
    }

    @Test
    void overAnyIntervalTheCostAdmittedIsTheRateTimesTheIntervalPlusTheBurstAndOneRequest() {
        BufferedWritePacing pacing = new BufferedWritePacing(5000, 100 * MS);
        long now = 0;
        long admittedCost = 0;
        long cost = 7;
        while (pacing.eligibleNanos(now) < 10 * SECOND) {
            now = pacing.eligibleNanos(now);
            pacing.charge(cost, now);
            admittedCost += cost;
        }
        assertThat(admittedCost).isBetween(5000L * 10, 5000L * 10 + 500 + cost);
    }

    @Test
    void aPauseBanksAtMostTheBurst() {
        BufferedWritePacing pacing = new BufferedWritePacing(1000, 50 * MS);
        pacing.charge(1, 0);
        long afterPause = 60 * SECOND;
        long admitted = 0;
        while (pacing.eligibleNanos(afterPause) <= afterPause) {
            pacing.charge(1, afterPause);
            admitted++;
        }
        assertThat(admitted).as("a minute idle still allows only 50 ms worth (+ the overdraw)").isEqualTo(51);
    }

    @Test
    void badFiguresAreRefusedNamingThem() {
        assertThatThrownBy(() -> new BufferedWritePacing(0, 0)).hasMessageContaining("capacityCostPerSecond")
                .hasMessageContaining("0");
        assertThatThrownBy(() -> new BufferedWritePacing(1, -1)).hasMessageContaining("burstNanos");
    }

    @Test
    void theFairQueueHoldsBackPacedWritesButNotReadsAndReservedWritesStillGoFirst() {
        // Capacity 100 cost/s, no burst. A reserved flow (40/s) and a best-effort flow both enqueue buffered
        // writes of cost 1 without end; a third flow sends unpaced requests (reads). Over 10 s of a device that
        // takes whatever is eligible at once: the writes together get 100/s, the reserved one at least its 40/s
        // in every second, and the reads (every 7 ms) are never held back.
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(1_000_000, 3_000_000),
                new BufferedWritePacing(100, 0));
        queue.configureFlow("reserved", FlowSpec.reserved(40, 1));
        queue.configureFlow("greedy", FlowSpec.bestEffort(1));
        queue.configureFlow("reads", FlowSpec.bestEffort(1));
        for (int index = 0; index < 2000; index++) {
            queue.enqueue("reserved", "w", 1, true, 0);
            queue.enqueue("greedy", "w", 1, true, 0);
        }
        Map<String, long[]> perSecond = new HashMap<>();
        long now = 0;
        long readsServed = 0;
        long nextReadNanos = 0;
        while (now < 10 * SECOND) {
            if (now >= nextReadNanos) {
                queue.enqueue("reads", "r", 1, false, now); // a read every 7 ms
                nextReadNanos += 7 * MS;
            }
            Decision<String> decision = queue.dequeue(now);
            if (decision instanceof Decision.Dispatch<String> dispatch) {
                if (dispatch.flowId().equals("reads")) {
                    assertThat(readsServed).as("a read waits for no pacing").isEqualTo(now / (7 * MS));
                    readsServed++;
                } else {
                    perSecond.computeIfAbsent(dispatch.flowId(), id -> new long[10])[(int) (now / SECOND)]++;
                }
                continue;
            }
            long next = decision instanceof Decision.WaitUntil<String> wait ? wait.eligibleNanos() : Long.MAX_VALUE;
            now = Math.min(next, nextReadNanos);
        }
        assertThat(readsServed).isEqualTo(10 * SECOND / (7 * MS) + 1);
        for (int second = 0; second < 10; second++) {
            assertThat(perSecond).as("flows served").containsKeys("reserved", "greedy");
            long reserved = perSecond.get("reserved")[second];
            long greedy = perSecond.get("greedy")[second];
            assertThat(reserved + greedy).as("paced writes in second %d", second).isBetween(99L, 101L);
            assertThat(reserved).as("reserved writes in second %d", second).isGreaterThanOrEqualTo(40);
        }
    }

    @Test
    void withoutPacingTheBufferedFlagChangesNothing() {
        FairQueue<String> queue = new FairQueue<>(new QueueBounds(100, 100));
        queue.configureFlow("a", FlowSpec.bestEffort(1));
        for (int index = 0; index < 50; index++) {
            queue.enqueue("a", "w", 1, true, 0);
        }
        for (int index = 0; index < 50; index++) {
            assertThat(queue.dequeue(0)).isInstanceOf(Decision.Dispatch.class);
        }
    }
}
