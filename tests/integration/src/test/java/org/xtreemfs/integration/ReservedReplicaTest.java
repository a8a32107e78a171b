package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.RmfsMain;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.qos.model.Units;

/**
 * Replicas of a reserved volume on real servers (processes): four sequential OSDs. A reserved volume raises its
 * replica count with {@code xtfsutil --set-replication} (its share admitted on a new OSD through the MRC's reservation
 * ledger), is refused naming the short dimension when no other OSD has room, and after kill -9 of a chain member
 * during writes gets its replacement on an OSD that admits its share (the dead OSD's share moves there). Every
 * acknowledged byte reads back, and the ledger, checked against the volumes' placements, is the same after a kill -9
 * and restart of the MRC. No server process of the class is left.
 */
class ReservedReplicaTest {
    private static final int PIECE_BYTES = 32 << 10;
    private static final int PIECES = 24;
    private static final int KILL_AFTER_PIECES = 8;
    private static final long DIR_HEARTBEAT_TIMEOUT_MS = 1_500;

    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        Map<String, String> sequential = Map.of("osd.usage.type", "sequential", "osd.device.class", "hdd",
                "osd.replication.fillBytesPerSecond", Long.toString(4L << 20));
        cluster = TestCluster.startProcesses(java.util.Collections.nCopies(4, sequential),
                Map.of("mrc.placement.osdCacheTtlMs", "100", "mrc.recovery.fillRetryDelayMs", "200"),
                Map.of("dir.heartbeat.timeoutMs", Long.toString(DIR_HEARTBEAT_TIMEOUT_MS)));
        client = cluster.qosClient();
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (cluster != null) {
                cluster.closeLeavingNoProcess();
            }
        }
    }

    @Test
    void aReservedVolumeGrowsWhereItsShareIsAdmittedAndARecoveryMovesTheDeadMembersShare() throws Exception {
        // The admissible throughput of one OSD at two streams (all four share the built-in HDD profile).
        OsdQosState any = client.qosStatus().getOsds(0);
        long twoStreams = QosWire.profile(any.getProfile()).sequentialThroughput().admissibleBytesPerSecond(2);
        // "hog" holds 80 % of one OSD, so a copy of "rv" (30 %) fits only on the other three.
        long hogThroughput = twoStreams * 8 / 10;
        long throughput = twoStreams * 3 / 10;
        mkfs("hog", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(hogThroughput));
        mkfs("rv", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(throughput), "--replicas", "2");
        String hogOsd = placement("hog").getOsdUuids(0);
        assertThat(placement("rv").getOsdUuidsList()).hasSize(2).doesNotContain(hogOsd);

        ToolRun raised = ToolRun.of(new XtfsutilMain(), "--set-replication", "3", cluster.dirUrl() + "/rv");
        assertThat(raised.exitCode()).as(raised.err()).isZero();
        QosPlacement three = placement("rv");
        assertThat(three.getReplicas()).isEqualTo(3);
        assertThat(three.getOsdUuidsList()).hasSize(3).doesNotHaveDuplicates().doesNotContain(hogOsd);
        for (String osd : three.getOsdUuidsList()) {
            assertThat(osd(client.qosStatus(), osd).getReservedThroughputBytesPerSecond()).as("rv's share on %s", osd)
                    .isEqualTo(three.getShareThroughputBytesPerSecond());
        }
        assertLedgerMatchesPlacements(client.qosStatus());

        // A fourth copy would need the hog's OSD, which has no room for the share: refused naming throughput.
        ToolRun refused = ToolRun.of(new XtfsutilMain(), "--set-replication", "4", cluster.dirUrl() + "/rv");
        assertThat(refused.exitCode()).as("out %s err %s", refused.out(), refused.err()).isEqualTo(1);
        assertThat(refused.err()).contains("volume 'rv'").contains("throughput short by").doesNotContain("\tat ");
        System.out.printf("ReservedReplicaTest: xtfsutil --set-replication 4 refused: %s%n", refused.err().strip());
        assertThat(placement("rv")).isEqualTo(three);

        // The hog goes: its OSD now has room for a replacement of rv's.
        assertThat(ToolRun.of(new RmfsMain(), cluster.dirUrl() + "/hog").exitCode()).isZero();

        org.xtreemfs.client.Volume volume = client.openVolume("rv");
        String path = "/reserved-chain";
        FileHandle file = ChainRuns.openWhenPlaceable(volume, path);
        List<String> chain = ReplicaChain.of(file.credentials().getXlocs()).chainAt(0);
        assertThat(chain).containsExactlyInAnyOrderElementsOf(three.getOsdUuidsList());
        String victim = chain.get(1);
        long seed = 20261127L;
        PieceWriter writer = PieceWriter.start(file, PIECES, PIECE_BYTES,
                number -> ChainRuns.piece(seed, number, PIECE_BYTES), "reserved-writer");
        await().atMost(Duration.ofSeconds(60)).until(() -> writer.acknowledged() >= KILL_AFTER_PIECES || writer.done());
        long killedNanos = System.nanoTime();
        cluster.kill("osd" + cluster.osdUuids().indexOf(victim), "KILL");
        assertThat(writer.join(90_000)).isTrue();
        assertThat(writer.failure()).as("the writer's failure").isNull();
        assertThat(writer.acknowledged()).isEqualTo(PIECES);
        long writerDoneNanos = System.nanoTime();
        file.fsync();

        AtomicReference<XLocSet> current = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicLong reformedNanos = new java.util.concurrent.atomic.AtomicLong();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            current.set(volume.fileLayout(path).getXlocs());
            if (current.get().getVersion() > 1) {
                reformedNanos.compareAndSet(0, System.nanoTime());
            }
            return current.get().getReplicasCount() == 3
                    && current.get().getReplicasList().stream().noneMatch(Replica::getFilling);
        });
        System.out.printf("ReservedReplicaTest: member %s killed; re-formed with the replacement %d ms later (writes"
                + " acknowledged %d ms after the kill), three filled replicas %d ms after the kill, load %s%n", victim,
                (reformedNanos.get() - killedNanos) / 1_000_000L, (writerDoneNanos - killedNanos) / 1_000_000L,
                (System.nanoTime() - killedNanos) / 1_000_000L, ChainRuns.loadAverage());
        List<String> expectedChain = new ArrayList<>(chain);
        expectedChain.remove(victim);
        expectedChain.add(1, hogOsd);
        assertThat(ReplicaChain.of(current.get()).chainAt(0)).as("the replacement on the OSD that admits the share")
                .containsExactlyElementsOf(expectedChain);
        QosPlacement moved = placement("rv");
        assertThat(moved.getOsdUuidsList()).contains(hogOsd).doesNotContain(victim).hasSize(3);
        QosStatus ledger = client.qosStatus();
        assertThat(osd(ledger, hogOsd).getReservedThroughputBytesPerSecond()).isEqualTo(throughput);
        assertThat(osd(ledger, victim).getAvailable()).isFalse();
        assertThat(osd(ledger, victim).getVolumeIdsList()).as("the dead OSD's share moved").isEmpty();
        assertLedgerMatchesPlacements(ledger);

        byte[] expected = new byte[PIECES * PIECE_BYTES];
        for (int piece = 0; piece < PIECES; piece++) {
            System.arraycopy(ChainRuns.piece(seed, piece, PIECE_BYTES), 0, expected, piece * PIECE_BYTES, PIECE_BYTES);
        }
        file.close();
        try (Client fresh = cluster.client();
                FileHandle reader = fresh.openVolume("rv").open(path, OpenFlags.O_RDONLY, 0)) {
            Bytes.assertSameBytes(reader.read(0, expected.length), expected);
            Replicas.assertEachMemberHolds(client, reader.credentials(), ReplicaChain.of(current.get()).chainAt(0),
                    expected);
        }

        // kill -9 and restart of the MRC: the ledger rebuilt from its store is the one before.
        Map<String, String> before = ledgerSummary(ledger);
        cluster.kill("mrc", "KILL");
        cluster.restart("mrc");
        try (Client afterRestart = cluster.client()) {
            QosStatus reloaded = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(afterRestart::qosStatus, status -> status.getOsdsCount() == ledger.getOsdsCount());
            assertThat(ledgerSummary(reloaded)).isEqualTo(before);
            assertLedgerMatchesPlacements(reloaded, afterRestart);
        }

        // Now the tail dies too: every other sequential OSD is dead or holds rv's share already, so nothing admits a
        // replacement. The chain stays short, and the MRC's log and xtfsutil say so, naming the reservation.
        String tail = expectedChain.get(2);
        cluster.kill("osd" + cluster.osdUuids().indexOf(tail), "KILL");
        try (Client writerClient = cluster.client();
                FileHandle more = ChainRuns.openWhenPlaceable(writerClient.openVolume("rv"), path)) {
            more.write(expected.length, ChainRuns.piece(seed, PIECES, PIECE_BYTES));
            more.fsync();
        }
        XLocSet shortChain = volume.fileLayout(path).getXlocs();
        assertThat(ReplicaChain.of(shortChain).chainAt(0)).containsExactly(expectedChain.get(0), hogOsd);
        ToolRun shown = ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/rv" + path);
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("replicas short:").contains("the file has 2 of the policy's 3 replicas");
        String mrcLog = java.nio.file.Files.readString(cluster.launcher().status().stream()
                .filter(server -> server.name().equals("mrc")).findFirst().orElseThrow().log());
        assertThat(mrcLog).contains("one short: no OSD admits the reservation share of replica 3 of volume 'rv'");
        System.out.printf("ReservedReplicaTest: %s%n", mrcLog.lines().filter(line -> line.contains("one short:"))
                .reduce((first, last) -> last).orElseThrow());
        assertThat(placement("rv").getOsdUuidsList()).as("a refused move changes no booking").contains(tail);
    }

    private static void mkfs(String volume, String... options) {
        String[] arguments = java.util.Arrays.copyOf(options, options.length + 1);
        arguments[options.length] = cluster.dirUrl() + "/" + volume;
        ToolRun made = ToolRun.of(new MkfsMain(), arguments);
        assertThat(made.exitCode()).as(made.err()).isZero();
    }

    private static String rate(long bytesPerSecond) {
        return Units.formatBytesPerSecond(bytesPerSecond);
    }

    private static QosPlacement placement(String volumeName) throws Exception {
        return client.listVolumes().stream().filter(volume -> volume.getName().equals(volumeName)).findFirst()
                .orElseThrow().getPlacement();
    }

    private static OsdQosState osd(QosStatus status, String uuid) {
        return status.getOsdsList().stream().filter(osd -> osd.getUuid().equals(uuid)).findFirst()
                .orElseThrow(() -> new AssertionError("the ledger does not list OSD " + uuid));
    }

    /** Per OSD: its volumes and the throughput and capacity reserved on it. */
    private static Map<String, String> ledgerSummary(QosStatus status) {
        Map<String, String> summary = new TreeMap<>();
        for (OsdQosState osd : status.getOsdsList()) {
            summary.put(osd.getUuid(), new TreeSet<>(osd.getVolumeIdsList()) + " " + osd.getReservedCapacityBytes()
                    + " B " + osd.getReservedThroughputBytesPerSecond() + " B/s");
        }
        return summary;
    }

    private static void assertLedgerMatchesPlacements(QosStatus status) throws Exception {
        assertLedgerMatchesPlacements(status, client);
    }

    /** Every OSD carries exactly the shares of the volumes whose placements list it (recomputed, not trusted). */
    private static void assertLedgerMatchesPlacements(QosStatus status, Client reader) throws Exception {
        Map<String, long[]> expected = new HashMap<>();
        Map<String, TreeSet<String>> volumes = new HashMap<>();
        for (Volume volume : reader.listVolumes()) {
            if (!volume.hasPlacement()) {
                continue;
            }
            for (String osd : volume.getPlacement().getOsdUuidsList()) {
                long[] shares = expected.computeIfAbsent(osd, key -> new long[2]);
                shares[0] += volume.getPlacement().getShareCapacityBytes();
                shares[1] += volume.getPlacement().getShareThroughputBytesPerSecond();
                volumes.computeIfAbsent(osd, key -> new TreeSet<>()).add(volume.getId());
            }
        }
        for (OsdQosState osd : status.getOsdsList()) {
            long[] shares = expected.getOrDefault(osd.getUuid(), new long[2]);
            assertThat(osd.getReservedCapacityBytes()).as("capacity on %s", osd.getUuid()).isEqualTo(shares[0]);
            assertThat(osd.getReservedThroughputBytesPerSecond()).as("throughput on %s", osd.getUuid())
                    .isEqualTo(shares[1]);
            assertThat(new TreeSet<>(osd.getVolumeIdsList())).isEqualTo(volumes.getOrDefault(osd.getUuid(),
                    new TreeSet<>()));
        }
    }
}
