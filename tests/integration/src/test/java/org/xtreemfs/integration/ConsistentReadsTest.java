package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * Consistent reads at every replica on real servers (a DIR, an MRC and three OSDs in this JVM, a chain of three,
 * pattern routing): {@link ConsistencyLoad}'s two writer clients and two reader clients on 4 KiB slots for 6 s, and
 * {@link ConsistencyChecker} checks the whole history: no torn or foreign content, no version from nowhere, none
 * older than a write acknowledged or a read returned before the read began, and the final read of every slot is
 * its last acknowledged version. The OSDs' status pages show that head and middle served reads and that reads of
 * files with unacknowledged updates were passed down. {@link ConsistentReadsKillTest} runs the same load across a
 * kill -9 of a chain member.
 */
class ConsistentReadsTest {
    private static final long LOAD_MS = 6_000;
    private TestCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void concurrentWritersAndReadersOnEveryReplicaSeeOnlyCommittedNeverOlderData() throws Exception {
        cluster = TestCluster.start(3);
        try (Client admin = cluster.client()) {
            createReplicatedVolume(admin, "craq");
        }
        ConsistencyChecker checker = new ConsistencyChecker(ConsistencyLoad.SLOT_BYTES);
        ConsistencyLoad.Outcome outcome = new ConsistencyLoad(cluster, "craq", "/a", 0, ClientOptions.builder())
                .run(checker, LOAD_MS, () -> {});
        assertConsistent(checker, outcome);
        assertThat(checker.writes()).isGreaterThan(200);
        assertThat(checker.reads()).isGreaterThan(500);
        List<String> chain = outcome.chain();
        long[] served = new long[3];
        long passedDown = 0;
        for (int replica = 0; replica < 3; replica++) {
            int osd = cluster.osdUuids().indexOf(chain.get(replica));
            passedDown += cluster.osdStatusNumber(osd, "replicationReadsPassedDown");
            served[replica] = cluster.osdStatusNumber(osd, "storageReadsServed");
        }
        assertThat(served[0] + served[1] + served[2]).as("every recorded read was served once, from some copy")
                .isEqualTo(checker.reads());
        assertThat(served[0]).as("reads the head served from its own copy").isGreaterThan(0);
        assertThat(served[1]).as("reads the middle served from its own copy").isGreaterThan(0);
        assertThat(passedDown).as("reads of a file with an unacknowledged update passed down the chain")
                .isGreaterThan(0);
    }

    /** A volume whose files are chains of three with pattern routing. */
    static void createReplicatedVolume(Client client, String name) throws Exception {
        client.createVolume(Volume.newBuilder().setName(name).setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3)
                        .setReadRouting(ReadRouting.READ_ROUTING_PATTERN)).build());
    }

    /**
     * No violation in the history, no failed write, and the final read of every slot is its last acknowledged
     * write.
     */
    static void assertConsistent(ConsistencyChecker checker, ConsistencyLoad.Outcome outcome) {
        assertThat(checker.violations(20)).as("consistency violations among %d reads and %d writes", checker.reads(),
                checker.writes()).isEmpty();
        assertThat(checker.failedWrites()).as("writes whose call failed").isZero();
        for (int slot = 0; slot < outcome.finalVersions().length; slot++) {
            assertThat(outcome.finalVersions()[slot]).as("the final read of slot %d", slot)
                    .isEqualTo(checker.lastAcknowledgedVersion(slot));
        }
    }
}
