package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.cluster.LocalCluster;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

/**
 * Recovery work that outlives the MRC's memory (servers/mrc README, "Chain re-formation"), servers as processes: four
 * OSDs, a volume with three replicas, a 1.5 s DIR heartbeat timeout, OSD fills slowed to 256 KiB/s and the MRC's
 * recovery check every 500 ms.
 * <ul>
 * <li>kill -9 of the MRC while a dead member's replacement is filling, and a restart: the restarted MRC finds the
 * filling replica from its persisted replica work, fills it (OSD_FILL_REPLICA) and marks it filled; every member's
 * own copy equals what was written;</li>
 * <li>a chain left short (the fourth OSD was down when a member died) is topped up by the MRC itself once that OSD
 * is started again: the OSD joins before the tail, is filled and marked filled, and holds the file byte for byte.</li>
 * </ul>
 * No server process of the class is left.
 */
class ReplicaResumeTest {
    private static final int PIECE_BYTES = 64 << 10;
    /** 1.5 MiB: 12 objects of 128 KiB, about 6 s of fill at the rate below. */
    private static final int PIECES = 24;
    private static final long DIR_HEARTBEAT_TIMEOUT_MS = 1_500;
    private static final long FILL_BYTES_PER_SECOND = 256L << 10;

    private static ChainRuns.KillCluster servers;
    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = new ChainRuns.KillCluster(4,
                Map.of("osd.replication.fillBytesPerSecond", Long.toString(FILL_BYTES_PER_SECOND)),
                Map.of("mrc.placement.osdCacheTtlMs", "100", "mrc.recovery.fillRetryDelayMs", "200",
                        "mrc.recovery.checkPeriodMs", "500"),
                DIR_HEARTBEAT_TIMEOUT_MS, "resume", 3);
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
    void aReplacementFillingWhenTheMrcIsKilledIsFilledAfterItsRestart() throws Exception {
        cluster.awaitServicesAvailable();
        long seed = 1127L;
        String path = "/resumed";
        org.xtreemfs.client.Volume volume = client.openVolume("resume");
        Placed placed = place(volume, path, seed);
        FileHandle file = placed.file();
        List<String> chain = placed.chain();
        String spare = placed.spare();
        String victimName = nameOf(chain.get(1));
        byte[] expected = placed.expected();
        try {
            cluster.kill(victimName, "KILL");
            // The last piece meets the dead middle: the writer reports it, and once the DIR shows it dead the MRC
            // re-forms the chain with the spare as a filling replacement (version 2) and starts filling it.
            file.write(expected.length - PIECE_BYTES, java.util.Arrays.copyOfRange(expected,
                    expected.length - PIECE_BYTES, expected.length));
            file.fsync();
            XLocSet reformed = volume.fileLayout(path).getXlocs();
            assertThat(reformed.getVersion()).isEqualTo(2);
            assertThat(ReplicaChain.of(reformed).chainAt(0)).containsExactly(chain.get(0), spare, chain.get(2));
            assertThat(reformed.getReplicas(1).getFilling()).as("the replacement still fills (%d B at %d B/s)",
                    expected.length, FILL_BYTES_PER_SECOND).isTrue();

            long killedNanos = System.nanoTime();
            cluster.kill("mrc", "KILL");
            servers.restart("mrc");
            XLocSet recovered = awaitThreeFilledReplicas(volume, path);
            System.out.printf("ReplicaResumeTest: MRC killed during a fill; three filled replicas %d ms later, load"
                    + " %s%n", (System.nanoTime() - killedNanos) / 1_000_000L, ChainRuns.loadAverage());
            assertThat(recovered.getVersion()).as("re-formed (2), marked filled by the restarted MRC (3)")
                    .isEqualTo(3);
            assertThat(ReplicaChain.of(recovered).chainAt(0)).containsExactly(chain.get(0), spare, chain.get(2));
            assertThat(mrcStatusNumber("recoveryFillsResumed")).as("the restarted MRC resumed the fill")
                    .isGreaterThanOrEqualTo(1);
            file.close();
            assertEveryMemberHolds(path, expected, ReplicaChain.of(recovered).chainAt(0));
        } finally {
            servers.restart(victimName);
        }
    }

    @Test
    void aChainLeftShortIsToppedUpWhenAnOsdIsStartedLater() throws Exception {
        cluster.awaitServicesAvailable();
        long seed = 2711L;
        String path = "/topped-up";
        org.xtreemfs.client.Volume volume = client.openVolume("resume");
        Placed placed = place(volume, path, seed);
        FileHandle file = placed.file();
        List<String> chain = placed.chain();
        String lateUuid = placed.spare();
        String late = nameOf(lateUuid);
        String victimName = nameOf(chain.get(0));
        byte[] expected = placed.expected();
        boolean lateStarted = false;
        try {
            // The spare OSD is down (the DIR shows it dead) when the head dies: no OSD for a replacement.
            cluster.kill(late, "KILL");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> client
                    .services(ServiceType.SERVICE_TYPE_OSD, true).stream().noneMatch(osd -> osd.getUuid()
                            .equals(lateUuid) && osd.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE));
            cluster.kill(victimName, "KILL");
            file.write(expected.length - PIECE_BYTES, java.util.Arrays.copyOfRange(expected,
                    expected.length - PIECE_BYTES, expected.length));
            file.close();
            XLocSet shortChain = volume.fileLayout(path).getXlocs();
            assertThat(shortChain.getVersion()).isEqualTo(2);
            assertThat(ReplicaChain.of(shortChain).chainAt(0)).as("the survivors, one short")
                    .containsExactly(chain.get(1), chain.get(2));
            // Rounds of the recovery check pass without an eligible OSD: the chain stays as it is.
            long rounds = mrcStatusNumber("recoveryRounds");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> mrcStatusNumber("recoveryRounds") >= rounds + 3);
            assertThat(volume.fileLayout(path).getXlocs()).isEqualTo(shortChain);
            assertThat(mrcStatusNumber("recoveryChainsShort")).isGreaterThanOrEqualTo(1);

            long startedNanos = System.nanoTime();
            servers.restart(late);
            lateStarted = true;
            XLocSet toppedUp = awaitThreeFilledReplicas(volume, path);
            System.out.printf("ReplicaResumeTest: %s started; the short chain had three filled replicas %d ms"
                    + " later, load %s%n", late, (System.nanoTime() - startedNanos) / 1_000_000L,
                    ChainRuns.loadAverage());
            assertThat(ReplicaChain.of(toppedUp).chainAt(0)).as("the late OSD joined before the tail")
                    .containsExactly(chain.get(1), lateUuid, chain.get(2));
            assertThat(toppedUp.getVersion()).as("short (2), topped up (3), filled (4)").isEqualTo(4);
            assertThat(mrcStatusNumber("recoveryChainsToppedUp")).isGreaterThanOrEqualTo(1);
            assertEveryMemberHolds(path, expected, ReplicaChain.of(toppedUp).chainAt(0));
        } finally {
            if (!lateStarted) {
                servers.restart(late);
            }
            servers.restart(victimName);
        }
    }

    private static String nameOf(String osdUuid) {
        return "osd" + cluster.osdUuids().indexOf(osdUuid);
    }

    /** A new file of the volume's three replicas, all but its last piece written and fsynced, and the spare OSD. */
    private record Placed(FileHandle file, List<String> chain, String spare, byte[] expected) {}

    private static Placed place(org.xtreemfs.client.Volume volume, String path, long seed) throws Exception {
        FileHandle file = ChainRuns.openWhenPlaceable(volume, path);
        List<String> chain = ReplicaChain.of(file.credentials().getXlocs()).chainAt(0);
        List<String> spares = new ArrayList<>(cluster.osdUuids());
        spares.removeAll(chain);
        assertThat(spares).hasSize(1);
        byte[] expected = ChainRuns.pieces(seed, PIECES, PIECE_BYTES);
        file.write(0, java.util.Arrays.copyOf(expected, expected.length - PIECE_BYTES));
        file.fsync();
        return new Placed(file, chain, spares.get(0), expected);
    }

    private static XLocSet awaitThreeFilledReplicas(org.xtreemfs.client.Volume volume, String path) {
        AtomicReference<XLocSet> current = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
            current.set(volume.fileLayout(path).getXlocs());
            return current.get().getReplicasCount() == 3
                    && current.get().getReplicasList().stream().noneMatch(Replica::getFilling);
        });
        return current.get();
    }

    /** A fresh client reads the file back, and each member's own copy (the tail's in its log) equals it. */
    private static void assertEveryMemberHolds(String path, byte[] expected, List<String> members) throws Exception {
        try (Client fresh = cluster.client();
                FileHandle reader = fresh.openVolume("resume").open(path, OpenFlags.O_RDONLY, 0)) {
            Bytes.assertSameBytes(reader.read(0, expected.length), expected);
            for (String member : members) {
                Bytes.assertSameBytes(Replicas.copyAt(client, reader.credentials(), member, expected.length), expected);
            }
        }
    }

    /** A figure of the MRC's /status.json, fetched now. */
    private static long mrcStatusNumber(String key) throws Exception {
        int port = cluster.launcher().status().stream().filter(server -> server.name().equals("mrc"))
                .mapToInt(LocalCluster.ServerStatus::statusPort).findFirst().orElseThrow();
        String status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/status.json")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher matcher = Pattern.compile("\"" + key + "\"\\s*:\\s*(\\d+)").matcher(status);
        assertThat(matcher.find()).as("%s on the MRC's status page: %s", key, status).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
