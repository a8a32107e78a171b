package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.ServiceResult;
import org.xtreemfs.qos.device.WriteBackCache;
import org.xtreemfs.qos.device.WriteBackLevel;
import org.xtreemfs.qos.device.WriteBackState;
import org.xtreemfs.qos.device.HddState;

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
    void belowTheWriteBacksBackgroundLevelWritesPassAndTheDebtStaysWithinTheBurst() {
        BufferedWritePacing pacing = new BufferedWritePacing(1000, 100 * MS);
        long now = 10 * SECOND;
        pacing.observeWriteBack(10, 100);
        assertThat(pacing.flusherIdle()).isTrue();
        for (int index = 0; index < 10_000; index++) {
            assertThat(pacing.eligibleNanos(now)).as("write %d below the background level", index).isEqualTo(now);
            pacing.charge(10, now);
        }
        pacing.observeWriteBack(100, 100);
        assertThat(pacing.flusherIdle()).as("at the level the flusher runs").isFalse();
        assertThat(pacing.eligibleNanos(now)).as("10,000 writes admitted unpaced leave at most the burst of debt")
                .isEqualTo(now + 100 * MS);
        assertThat(pacing.eligibleNanos(now + 100 * MS)).isEqualTo(now + 100 * MS);
    }

    @Test
    void withoutAReportTheBucketAlwaysPaces() {
        BufferedWritePacing pacing = new BufferedWritePacing(1000, 0);
        assertThat(pacing.flusherIdle()).isFalse();
        pacing.charge(10, 0);
        assertThat(pacing.eligibleNanos(0)).isEqualTo(10 * MS);
        assertThatThrownBy(() -> pacing.observeWriteBack(-1, 5)).hasMessageContaining("-1");
    }

    /**
     * The rule on the emulated HDD's own write-back model (WriteBackCache, 64 MiB dirty limit, 32 MiB background
     * level), on a manual clock: two reserved flows (17 and 17 random 4 KiB writes a second) and a best-effort one,
     * all backlogged with buffered writes, cost 1 each, pacing at the random profile's 40 a second. Told the
     * write-back's level, the queue admits what the sorted flushes take (well above 40 a second: work-conserving),
     * each reservation holds in every second, and the write-back never reaches its dirty limit (no writer ever waits
     * for room, which is where the whole-OSD stalls came from). Not told, the pacing holds all writes to 40 a second.
     */
    @Test
    void toldTheWriteBacksLevelThePacingAdmitsWhatItFlushesKeepingReservationsAndRoom() {
        Outcome observed = runOnTheWriteBackModel(true);
        Outcome blind = runOnTheWriteBackModel(false);
        assertThat(blind.writesPerSecond()).as("pacing at the profile's rate only").isBetween(38.0, 42.0);
        assertThat(observed.writesPerSecond()).as("admitted at the rate the write-back flushes")
                .isGreaterThan(2 * blind.writesPerSecond());
        assertThat(observed.bestEffortPerSecond()).as("the best-effort flow gets the difference")
                .isGreaterThan(5 * blind.bestEffortPerSecond());
        for (Outcome outcome : new Outcome[] {observed, blind}) {
            assertThat(outcome.reservedMinimumPerSecond()).as("each reservation in every measured second")
                    .isGreaterThanOrEqualTo(17);
            assertThat(outcome.longestAckNanos()).as("no write waited for room in the write-back")
                    .isLessThan(10 * MS);
        }
    }

    private record Outcome(double writesPerSecond, double bestEffortPerSecond, long reservedMinimumPerSecond,
            long longestAckNanos) {}

    private static Outcome runOnTheWriteBackModel(boolean observe) {
        WriteBackCache<HddState> model = WriteBackCache.osdHdd7200();
        WriteBackState<HddState> state = model.initialState();
        FairQueue<Integer> queue = new FairQueue<>(new QueueBounds(64, 192), new BufferedWritePacing(40, 100 * MS));
        queue.configureFlow("rand-a", FlowSpec.reserved(17, 1));
        queue.configureFlow("rand-b", FlowSpec.reserved(17, 1));
        queue.configureFlow("be-rand", FlowSpec.bestEffort(1));
        SplittableRandom random = new SplittableRandom(7);
        long regionBytes = 1L << 30;
        String[] flows = {"rand-a", "rand-b", "be-rand"};
        int warmupSeconds = 120; // the write-back fills to its background level first (8,192 writes of 4 KiB)
        int measuredSeconds = 60;
        long[][] perSecond = new long[3][measuredSeconds];
        long now = 0;
        long longestAckNanos = 0;
        while (now < (warmupSeconds + measuredSeconds) * SECOND) {
            for (int flow = 0; flow < 3; flow++) {
                while (queue.size(flows[flow]) < 64) { // closed loop: every flow keeps 64 writes waiting
                    queue.enqueue(flows[flow], flow, 1, true, now);
                }
            }
            if (observe) {
                WriteBackLevel level = model.writeBackLevel(state, now).orElseThrow();
                queue.observeWriteBack(level.dirtyBytes(), level.backgroundBytes());
            }
            Decision<Integer> decision = queue.dequeue(now);
            if (decision instanceof Decision.Dispatch<Integer> dispatch) {
                int flow = dispatch.request();
                long offset = flow * (regionBytes * 4) + random.nextLong(regionBytes / 4096) * 4096;
                ServiceResult<WriteBackState<HddState>> served = model.serve(IoRequest.write(offset, 4096), state, now);
                state = served.nextState();
                longestAckNanos = Math.max(longestAckNanos, served.completionNanos() - now);
                int second = (int) (now / SECOND) - warmupSeconds;
                if (second >= 0) {
                    perSecond[flow][second]++;
                }
                now = Math.max(now, served.completionNanos()); // one write at a time, acknowledged from memory
                continue;
            }
            now = decision instanceof Decision.WaitUntil<Integer> wait ? wait.eligibleNanos() : now + MS;
            now = Math.min(now, now - now % MS + MS); // look at the write-back at least every millisecond
        }
        long total = 0;
        long reservedMinimum = Long.MAX_VALUE;
        for (int flow = 0; flow < 3; flow++) {
            for (long count : perSecond[flow]) {
                total += count;
                if (flow < 2) {
                    reservedMinimum = Math.min(reservedMinimum, count);
                }
            }
        }
        long bestEffort = 0;
        for (long count : perSecond[2]) {
            bestEffort += count;
        }
        return new Outcome((double) total / measuredSeconds, (double) bestEffort / measuredSeconds, reservedMinimum,
                longestAckNanos);
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
