package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * Re-replication to a fresh OSD, servers as processes: four OSDs, a volume with three replicas, so every file's
 * chain leaves one OSD spare. kill -9 of the head, the middle and the tail during a write load (fixed seeds): the MRC
 * removes the dead member and, in the same XLoc version, adds the spare OSD as a filling replacement before the new
 * tail; it fills the replacement in the background (OSD_FILL_REPLICA at the OSDs' bounded best-effort rate) and then
 * clears its mark under the next version. Afterwards every acknowledged byte reads back, the chain has three replicas
 * again, and the replacement holds, object for object, the same bytes as the other two and as written. The writer's
 * handle, still on the re-formation's XLoc version, is refused XLOC_OUTDATED and follows to the filled one. The killed
 * OSD, started again on its stale copy, refuses the old XLoc (XLOC_OUTDATED). No server of the class is left.
 */
class ReplicaRecoveryTest {
    private static final int PIECE_BYTES = 32 << 10;
    private static final int PIECES = 24;
    private static final int KILL_AFTER_PIECES = 8;
    private static final long DIR_HEARTBEAT_TIMEOUT_MS = 1_500;
    /** The OSDs' fill rate (osd.replication.fillBytesPerSecond): the replacement's copy is paced by it. */
    private static final long FILL_BYTES_PER_SECOND = 1L << 20;

    private static ChainRuns.KillCluster servers;
    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = new ChainRuns.KillCluster(4,
                Map.of("osd.replication.fillBytesPerSecond", Long.toString(FILL_BYTES_PER_SECOND),
                        "osd.health.storageFailuresMax", "2"),
                Map.of("mrc.placement.osdCacheTtlMs", "100", "mrc.recovery.fillRetryDelayMs", "200"),
                DIR_HEARTBEAT_TIMEOUT_MS, "recovery", 3);
        cluster = servers.cluster;
        client = servers.client;
    }

    @AfterAll
    static void stopCluster() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void aDeadHeadIsReplacedByTheSpareOsd() throws Exception {
        killDuringWritesAndRecover(0, 20261127L);
    }

    @Test
    void aDeadMiddleIsReplacedByTheSpareOsd() throws Exception {
        killDuringWritesAndRecover(1, 4242L);
    }

    @Test
    void aDeadTailIsReplacedByTheSpareOsd() throws Exception {
        killDuringWritesAndRecover(2, 777L);
    }

    // A member whose disk fails keeps heartbeating, so the DIR alone never shows it dead: it counts its storage
    // failures (osd.health.storageFailuresMax, 2 here), answers each CHAIN_MEMBER_UNREACHABLE naming itself (passed
    // back by the head), and once failing registers as TO_BE_REMOVED; the writer reports it, and the MRC removes and
    // replaces it as it does a dead member, while its process still runs.
    @Test
    void aMiddleWhoseDiskFailsIsRemovedAndReplacedWhileItStillHeartbeats() throws Exception {
        cluster.awaitServicesAvailable();
        long seed = 99L;
        String path = "/disk-failure";
        org.xtreemfs.client.Volume volume = client.openVolume("recovery");
        FileHandle file = ChainRuns.openWhenPlaceable(volume, path);
        FileCredentials before = file.credentials();
        List<String> chain = ReplicaChain.of(before.getXlocs()).chainAt(0);
        List<String> spares = new ArrayList<>(cluster.osdUuids());
        spares.removeAll(chain);
        String victim = chain.get(1);
        String victimName = "osd" + cluster.osdUuids().indexOf(victim);
        byte[] expected = ChainRuns.pieces(seed, PIECES, PIECE_BYTES);
        int firstPieces = 2 * Volumes.OBJECT_SIZE_BYTES / PIECE_BYTES;
        file.write(0, java.util.Arrays.copyOf(expected, firstPieces * PIECE_BYTES));
        // From now on the middle's disk fails for this file: its folder becomes a regular file, so every object the
        // middle has not opened yet cannot be created (root ignores permissions, so they cannot make it fail).
        String[] hash = org.xtreemfs.osd.storage.FileIds.hashFolders(before.getXcap().getFileId());
        java.nio.file.Path folder = cluster.osdDataFolder(cluster.osdUuids().indexOf(victim)).resolve(hash[0])
                .resolve(hash[1]).resolve(org.xtreemfs.osd.storage.FileIds.escape(before.getXcap().getFileId()));
        java.nio.file.Path moved = folder.resolveSibling(folder.getFileName() + ".moved");
        java.nio.file.Files.move(folder, moved);
        java.nio.file.Files.writeString(folder, "not a folder: the injected disk failure");
        long failedNanos = System.nanoTime();
        file.write((long) firstPieces * PIECE_BYTES, java.util.Arrays.copyOfRange(expected,
                firstPieces * PIECE_BYTES, expected.length));
        file.close();

        AtomicReference<XLocSet> current = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            current.set(volume.fileLayout(path).getXlocs());
            return current.get().getReplicasCount() == 3
                    && current.get().getReplicasList().stream().noneMatch(Replica::getFilling);
        });
        System.out.printf("ReplicaRecoveryTest: the middle's (%s) disk failed; three filled replicas again %d ms"
                + " later, load %s%n", victim, (System.nanoTime() - failedNanos) / 1_000_000L,
                ChainRuns.loadAverage());
        assertThat(ReplicaChain.of(current.get()).chainAt(0)).as("the failing middle replaced by the spare")
                .containsExactly(chain.get(0), spares.get(0), chain.get(2));
        assertThat(cluster.launcher().status()).as("the failing OSD still runs").anySatisfy(server -> {
            assertThat(server.name()).isEqualTo(victimName);
            assertThat(server.running()).isTrue();
        });
        try (Client fresh = cluster.client();
                FileHandle reader = fresh.openVolume("recovery").open(path, OpenFlags.O_RDONLY, 0)) {
            Bytes.assertSameBytes(reader.read(0, expected.length), expected);
            Replicas.assertEachMemberHolds(client, reader.credentials(), ReplicaChain.of(current.get()).chainAt(0),
                    expected);
        }

        // The disk is "repaired" and the OSD restarted (failing lasts until a restart): the class's other tests
        // want four usable OSDs.
        java.nio.file.Files.delete(folder);
        java.nio.file.Files.move(moved, folder);
        cluster.kill(victimName, "KILL");
        servers.restart(victimName);
    }

    private void killDuringWritesAndRecover(int victimIndex, long seed) throws Exception {
        cluster.awaitServicesAvailable();
        String path = "/recovered" + victimIndex + "-" + seed;
        org.xtreemfs.client.Volume volume = client.openVolume("recovery");
        FileHandle file = ChainRuns.openWhenPlaceable(volume, path);
        FileCredentials before = file.credentials();
        List<String> chain = ReplicaChain.of(before.getXlocs()).chainAt(0);
        assertThat(chain).hasSize(3);
        List<String> spares = new ArrayList<>(cluster.osdUuids());
        spares.removeAll(chain);
        assertThat(spares).hasSize(1);
        String spare = spares.get(0);
        String victim = chain.get(victimIndex);
        String victimName = "osd" + cluster.osdUuids().indexOf(victim);

        PieceWriter writer = PieceWriter.start(file, PIECES, PIECE_BYTES,
                number -> ChainRuns.piece(seed, number, PIECE_BYTES),
                "recovery-writer-" + victimIndex);
        await().atMost(Duration.ofSeconds(60)).until(() -> writer.acknowledged() >= KILL_AFTER_PIECES || writer.done());
        long killedNanos = System.nanoTime();
        cluster.kill(victimName, "KILL");
        boolean restarted = false;
        try {
            assertThat(writer.join(90_000)).isTrue();
            assertThat(writer.failure()).as("the writer's failure").isNull();
            assertThat(writer.acknowledged()).isEqualTo(PIECES);
            file.fsync(); // reports the size to the MRC; the handle stays open (below)

            // The chain returns to three replicas: the survivors in their order with the spare before the new tail,
            // filled (no replica marked filling) under the version after the re-formation's.
            AtomicReference<XLocSet> current = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
                current.set(volume.fileLayout(path).getXlocs());
                return current.get().getReplicasCount() == 3
                        && current.get().getReplicasList().stream().noneMatch(Replica::getFilling);
            });
            long recoveredAfterMs = (System.nanoTime() - killedNanos) / 1_000_000L;
            List<String> expectedChain = new ArrayList<>(chain);
            expectedChain.remove(victim);
            expectedChain.add(1, spare);
            assertThat(ReplicaChain.of(current.get()).chainAt(0))
                    .as("survivors, with the spare before the new tail")
                    .containsExactlyElementsOf(expectedChain);
            assertThat(current.get().getVersion()).as("re-formed with the replacement (2), then filled (3)")
                    .isEqualTo(3);
            System.out.printf("ReplicaRecoveryTest: replica %d (%s) killed; three filled replicas again %d ms later"
                    + " (DIR heartbeat timeout %d ms, fill rate %d B/s), load %s%n", victimIndex, victim,
                    recoveredAfterMs,
                    DIR_HEARTBEAT_TIMEOUT_MS, FILL_BYTES_PER_SECOND, ChainRuns.loadAverage());

            // The killed OSD comes back on its stale copy: it serves nothing of the file to the old XLoc.
            servers.restart(victimName);
            restarted = true;
            servers.assertRefusesOutdated(victimName, before, PIECE_BYTES);

            byte[] expected = ChainRuns.pieces(seed, PIECES, PIECE_BYTES);
            try (Client fresh = cluster.client();
                    FileHandle reader = fresh.openVolume("recovery").open(path, OpenFlags.O_RDONLY, 0)) {
                Bytes.assertSameBytes(reader.read(0, expected.length), expected);
                FileCredentials recovered = reader.credentials();
                assertThat(recovered.getXlocs().getVersion()).isEqualTo(3);
                // Each member's own copy (the tail's in its log), the replacement's included: byte-equal to what was
                // written, so byte-equal to each other.
                Replicas.assertEachMemberHolds(client, recovered, expectedChain, expected);
            }
            // The writer's handle still holds the re-formation's version 2, and every member has now seen
            // version 3 (the reads above): its next write is refused XLOC_OUTDATED (the OSD's one version check,
            // XLocVersions) and follows to version 3, reaching all three members.
            assertThat(file.credentials().getXlocs().getVersion()).isEqualTo(2);
            byte[] rewritten = ChainRuns.piece(seed + 1, 0, PIECE_BYTES);
            file.write(0, rewritten);
            assertThat(file.credentials().getXlocs().getVersion()).isEqualTo(3);
            file.close();
            System.arraycopy(rewritten, 0, expected, 0, PIECE_BYTES);
            try (Client fresh = cluster.client();
                    FileHandle reader = fresh.openVolume("recovery").open(path, OpenFlags.O_RDONLY, 0)) {
                for (String member : expectedChain) {
                    Bytes.assertSameBytes(Replicas.objectsReadAt(client, reader.credentials(), member, 1).get(0L),
                            java.util.Arrays.copyOf(expected, Volumes.OBJECT_SIZE_BYTES));
                }
            }
        } finally {
            if (!restarted) {
                servers.restart(victimName); // the class's other tests want four OSDs
            }
        }
    }
}
