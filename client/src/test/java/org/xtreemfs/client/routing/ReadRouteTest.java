package org.xtreemfs.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * The Java client's routing of one open file with the loads its OSDs reported: qos.routing's stealing conditions
 * (tests/vectors/read-routing.json checks the rule itself) reach it through {@link ReplicaLoads}: a new stream's
 * first read stays at the loaded head, a confirmed random stream's read goes to the idle replica nearest the tail,
 * not to one that reported write-back to flush, and a report older than {@link ReplicaLoads#REPORT_MAX_AGE_MS}
 * counts as idle.
 */
class ReadRouteTest {
    private static final ReplicaChain CHAIN = ReplicaChain.of(XLocSet.newBuilder().setVersion(1)
            .addReplicas(Replica.newBuilder().addOsdUuids("head"))
            .addReplicas(Replica.newBuilder().addOsdUuids("middle"))
            .addReplicas(Replica.newBuilder().addOsdUuids("tail")).build());

    @Test
    void stealingNeedsAConfirmedRandomStreamAndAThiefWithoutWriteBack() {
        long[] nowMs = {1_000};
        ReplicaLoads loads = new ReplicaLoads(() -> nowMs[0]);
        loads.reported("head", 6, 0);
        ReadRoute route = new ReadRoute(CHAIN, ReadRouting.READ_ROUTING_PATTERN, loads, 0);
        assertThat(route.osdFor(0, route.observe(1 << 20, 4096))).as("a new stream's first read").isEqualTo("head");
        assertThat(route.osdFor(0, route.observe(9 << 20, 4096))).as("the second jump: confirmed random")
                .isEqualTo("tail");
        loads.reported("tail", 0, 64 * 1024);
        assertThat(route.osdFor(0, route.observe(3 << 20, 4096))).as("the tail flushes its write-back")
                .isEqualTo("middle");
        loads.reported("middle", 0, 4096);
        assertThat(route.osdFor(0, route.observe(5 << 20, 4096))).as("both flush").isEqualTo("head");
        nowMs[0] += ReplicaLoads.REPORT_MAX_AGE_MS + 1;
        loads.reported("head", 6, 0);
        assertThat(route.osdFor(0, route.observe(7 << 20, 4096))).as("the old write-back reports aged into idle")
                .isEqualTo("tail");
    }

    @Test
    void roundRobinNeverSteals() {
        ReplicaLoads loads = new ReplicaLoads(() -> 0);
        loads.reported("head", 9, 0);
        ReadRoute route = new ReadRoute(CHAIN, ReadRouting.READ_ROUTING_ROUND_ROBIN, loads, 3);
        route.observe(1 << 20, 4096);
        assertThat(route.osdFor(0, route.observe(9 << 20, 4096))).isEqualTo("head");
        assertThat(loads.load("nobody")).isEqualTo(ReplicaLoads.Load.IDLE);
        loads.reported("bad", -1, -5);
        assertThat(loads.load("bad")).isEqualTo(ReplicaLoads.Load.IDLE);
    }
}
