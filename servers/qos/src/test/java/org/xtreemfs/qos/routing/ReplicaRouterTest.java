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
        // Proves each disk sees one kind of read without stealing, whatever the loads.
        ReplicaRouter router = PatternAwareRouter.withoutStealing();
        List<Integer> busy = List.of(40, 30, 0);
        assertThat(router.readReplica(new ReadContext(7, AccessPattern.RANDOM, busy))).isZero();
        assertThat(router.readReplica(new ReadContext(7, AccessPattern.SEQUENTIAL, busy))).isEqualTo(1);
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.SEQUENTIAL, List.of(5)))).isZero();
    }

    @Test
    void stealingMovesReadsToAnIdleReplicaOnlyWhenThePreferredOneIsBusy() {
        // Proves steal picks an idle replica (tail first on ties) and leaves lightly loaded routes alone.
        ReplicaRouter router = PatternAwareRouter.stealingWhenIdle(4);
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.RANDOM, List.of(10, 0, 0)))).isEqualTo(2);
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.RANDOM, List.of(10, 0, 3)))).isEqualTo(1);
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.RANDOM, List.of(10, 2, 3)))).isZero();
        assertThat(router.readReplica(new ReadContext(0, AccessPattern.RANDOM, List.of(3, 0, 0)))).isZero();
    }
}
