package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * kill -9 of the tail of a three-OSD chain during a write load (servers as processes), restarted at once: writes
 * stall while it is down (the chain answers CHAIN_MEMBER_UNREACHABLE, the client reports the tail, and the MRC keeps
 * the chain because the DIR still shows the tail alive within its heartbeat timeout), continue once it is back on
 * the same data, and every acknowledged byte reads back afterwards, from the tail, with the three replicas holding
 * identical objects (the tail's in its log-structured layout, so its log and index come back after each kill -9).
 * A member that stays dead is removed from the chain: ChainFailoverTest.
 */
class ChainKillTest {
    private static final int PIECE_BYTES = 64 << 10;
    private static final int PIECES = 60;
    private static final long SEED = 20261127L;
    private TestCluster cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = TestCluster.startProcesses(3);
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    // Two kills of the tail, at fixed points of the load (after 15 and 40 acknowledged pieces).
    @Test
    void everyAcknowledgedByteSurvivesKillDashNineOfTheTail() throws Exception {
        try (Client client = cluster.client(ClientOptions.builder().retryWindowMs(60_000))) {
            client.createVolume(Volume.newBuilder().setName("killed").setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                            .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                    .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3)).build());
            FileHandle file = client.openVolume("killed").open("/load", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            String fileId = file.fileId();
            var credentials = file.credentials();
            List<String> chain = List.of(file.stripeOsdUuids().get(0),
                    file.credentials().getXlocs().getReplicas(1).getOsdUuids(0), file.replicaOsdUuids(2).get(0));
            String tailName = "osd" + cluster.osdUuids().indexOf(chain.get(2));

            PieceWriter writer = PieceWriter.start(file, PIECES, PIECE_BYTES, ChainKillTest::piece,
                    "writer-during-tail-kill");
            for (int killAfter : new int[] {15, 40}) {
                await().atMost(Duration.ofSeconds(60)).until(() -> writer.acknowledged() >= killAfter || writer.done());
                cluster.kill(tailName, "KILL");
                Thread.sleep(300);
                cluster.restart(tailName);
            }
            assertThat(writer.join(120_000)).isTrue();
            assertThat(writer.failure()).as("the writer's failure").isNull();
            assertThat(writer.acknowledged()).isEqualTo(PIECES);
            file.close();

            try (Client fresh = cluster.client();
                    FileHandle reader = fresh.openVolume("killed").open("/load", OpenFlags.O_RDONLY, 0)) {
                for (int piece = 0; piece < PIECES; piece++) {
                    Bytes.assertSameBytes(reader.read((long) piece * PIECE_BYTES, PIECE_BYTES), piece(piece));
                }
            }
            Map<Long, byte[]> head = Volumes.storedObjectBytes(dataFolderOf(chain.get(0)), fileId);
            long objects = PIECES * PIECE_BYTES / Volumes.OBJECT_SIZE_BYTES;
            assertThat(head).hasSize((int) objects);
            assertThat(Volumes.storedObjectBytes(dataFolderOf(chain.get(1)), fileId)).as("objects on the middle")
                    .usingRecursiveComparison().isEqualTo(head);
            // The tail keeps its copy in its log (osd.storage.layout=role): its index came back after each kill -9.
            assertThat(Volumes.storedObjectBytes(dataFolderOf(chain.get(2)), fileId)).as("object files on the tail")
                    .isEmpty();
            try (Client fresh = cluster.client()) {
                assertThat(Replicas.objectsReadAt(fresh, credentials, chain.get(2), objects))
                        .as("objects read at the tail").usingRecursiveComparison().isEqualTo(head);
            }
        }
    }

    private java.nio.file.Path dataFolderOf(String osdUuid) {
        return cluster.osdDataFolder(cluster.osdUuids().indexOf(osdUuid));
    }

    /** The bytes of piece n: the same for every run (seeded). */
    private static byte[] piece(int number) {
        byte[] bytes = new byte[PIECE_BYTES];
        new Random(SEED + number).nextBytes(bytes);
        return bytes;
    }
}
