package org.xtreemfs.qos.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaRouterTest {
    private static final List<Integer> IDLE = List.of(0, 0, 0);

    @Test
    void roundRobinBindingReproducesTheFastBaselineSplit() {
        // Proves 10 random then 10 sequential readers land 4+3, 3+4, 3+3 on head, middle, tail.
        ReplicaRouter router = new RoundRobinBindingRouter();
        int[][] perReplica = new int[3][2];
        for (int ordinal = 0; ordinal < 20; ordinal++) {
            AccessPattern pattern = ordinal < 10 ? AccessPattern.RANDOM : AccessPattern.SEQUENTIAL;
            int replica = router.readReplica(new ReadContext(ordinal, pattern, IDLE));
            perReplica[replica][pattern == AccessPattern.RANDOM ? 0 : 1]++;
        }
        assertThat(perReplica).isEqualTo(new int[][] {{4, 3}, {3, 4}, {3, 3}});
    }

    @Test
    void patternAwareSendsRandomToHeadAndSequentialToMiddle() {
        // Proves each disk sees one kind of read, whatever the loads.
        ReplicaRouter router = new PatternAwareRouter();
        List<Integer> busy = List.of(40, 30, 0);
        assertThat(router.readReplica(new ReadContext(7, AccessPattern.RANDOM, busy))).isZero();
        assertThat(router.readReplica(new ReadContext(7, AccessPattern.SEQUENTIAL, busy))).isEqualTo(1);
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.SEQUENTIAL, List.of(5)))).isZero();
    }

    @Test
    void idleReplicaStealsFromTheBusiestOnlyAboveTheThreshold() {
        // Proves the steal victim is the replica with most queued reads, head first on ties, never the thief.
        ReadStealing stealing = new ReadStealing(4);
        assertThat(stealing.victimFor(2, List.of(10, 3, 0))).hasValue(0);
        assertThat(stealing.victimFor(2, List.of(5, 9, 0))).hasValue(1);
        assertThat(stealing.victimFor(1, List.of(6, 0, 6))).hasValue(0);
        assertThat(stealing.victimFor(2, List.of(3, 3, 0))).isEmpty();
        assertThat(stealing.victimFor(0, List.of(50, 0, 0))).isEmpty();
    }

    @Test
    void aClientSendsAReadToTheIdleReplicaThatWouldStealIt() {
        // The client-side view of the same rule: the routed replica keeps its read unless an idle one would take it.
        ReadStealing stealing = new ReadStealing(4);
        assertThat(stealing.thiefFor(0, List.of(10, 3, 0), CLEAN)).hasValue(2);
        assertThat(stealing.thiefFor(0, List.of(10, 0, 0), CLEAN)).hasValue(2);
        assertThat(stealing.thiefFor(0, List.of(10, 0, 1), CLEAN)).hasValue(1);
        assertThat(stealing.thiefFor(1, List.of(10, 5, 0), CLEAN)).isEmpty();
        assertThat(stealing.thiefFor(0, List.of(3, 0, 0), CLEAN)).isEmpty();
        assertThat(stealing.thiefFor(0, List.of(9), List.of(0L))).isEmpty();
        PatternAwareRouter router = new PatternAwareRouter();
        StreamClassifier random = confirmedRandom();
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.RANDOM, List.of(6, 0, 2)), random,
                CLEAN)).isEqualTo(1);
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.RANDOM, List.of(6, 0, 0)), random,
                CLEAN)).isEqualTo(2);
        StreamClassifier sequential = StreamClassifier.start(64 * 1024, 2).observe(0, 4096).observe(4096, 4096)
                .observe(8192, 4096);
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.SEQUENTIAL, List.of(6, 0, 2)),
                sequential, CLEAN)).isEqualTo(1);
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.SEQUENTIAL, List.of(0, 7, 2)),
                sequential, CLEAN)).as("a sequential read is never stolen").isEqualTo(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> stealing.readReplica(router,
                new ReadContext(0, AccessPattern.SEQUENTIAL, IDLE), random, CLEAN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SEQUENTIAL");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> stealing.thiefFor(0, IDLE, List.of(0L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 write-back reports for 3");
    }

    @Test
    void aClientStealsOnlyReadsOfConfirmedRandomStreamsAndOnlyToAReplicaWithoutWriteBack() {
        // Proves the simulator's two conditions hold for a client's routing: the loaded head keeps the first reads
        // of a new stream, and a replica with dirty write-back (though its queue is empty) steals nothing.
        ReadStealing stealing = new ReadStealing(2);
        PatternAwareRouter router = new PatternAwareRouter();
        List<Integer> headLoaded = List.of(6, 0, 0);
        StreamClassifier fresh = StreamClassifier.start(64 * 1024, 2).observe(1 << 20, 4096);
        assertThat(fresh.pattern()).isEqualTo(AccessPattern.RANDOM);
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.RANDOM, headLoaded), fresh, CLEAN))
                .as("a new stream's first read").isZero();
        StreamClassifier random = confirmedRandom();
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.RANDOM, headLoaded), random,
                List.of(0L, 0L, 8192L))).as("the tail flushes its write-back: the middle steals").isEqualTo(1);
        assertThat(stealing.readReplica(router, new ReadContext(0, AccessPattern.RANDOM, headLoaded), random,
                List.of(0L, 4096L, 8192L))).as("both flush: the head keeps the read").isZero();
    }

    private static final List<Long> CLEAN = List.of(0L, 0L, 0L);

    /** A stream after two jumps in a row: random, confirmed. */
    private static StreamClassifier confirmedRandom() {
        StreamClassifier stream = StreamClassifier.start(64 * 1024, 2).observe(0, 4096).observe(10 << 20, 4096);
        assertThat(ReadStealing.mayStealReadOf(stream)).isTrue();
        return stream;
    }

    @Test
    void onlyReadsOfConfirmedRandomStreamsMayBeStolen() {
        // Proves a new stream (RANDOM by default, nothing known yet) and a sequential one keep their reads; a stream
        // becomes stealable after confirmRequests jumps in a row, and stops being so once it runs sequentially.
        StreamClassifier stream = StreamClassifier.start(64 * 1024, 2);
        assertThat(ReadStealing.mayStealReadOf(stream)).isFalse();
        stream = stream.observe(0, 4096);
        assertThat(stream.pattern()).isEqualTo(AccessPattern.RANDOM);
        assertThat(ReadStealing.mayStealReadOf(stream)).isFalse();
        stream = stream.observe(10 << 20, 4096);
        assertThat(ReadStealing.mayStealReadOf(stream)).isTrue();
        stream = stream.observe((10 << 20) + 4096, 4096);
        assertThat(ReadStealing.mayStealReadOf(stream)).isFalse();
        StreamClassifier sequential = StreamClassifier.start(64 * 1024, 2).observe(0, 4096).observe(4096, 4096)
                .observe(8192, 4096);
        assertThat(sequential.pattern()).isEqualTo(AccessPattern.SEQUENTIAL);
        assertThat(ReadStealing.mayStealReadOf(sequential)).isFalse();
    }

    @Test
    void aReplicaWithItsOwnQueueOrWriteBackDoesNotSteal() {
        // Proves a replica steals only when nothing of its own waits: queued requests or dirty write-back.
        assertThat(ReadStealing.thiefIdle(0, 0)).isTrue();
        assertThat(ReadStealing.thiefIdle(1, 0)).isFalse();
        assertThat(ReadStealing.thiefIdle(0, 4096)).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReadStealing.thiefIdle(-1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
