package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * The consistency checker across an OSD kill (issue 12): {@link ConsistencyLoad}'s concurrent writers and readers
 * (four clients, one file replicated on a chain of three OSD processes, pattern routing) run for 3 s, then one
 * chain member (head, middle or tail; a fixed seed per case) is killed with -9; the clients report it, the MRC
 * removes it once the DIR shows it dead (1.5 s heartbeat timeout) and answers XLoc version 2, and the load goes on
 * for 6 s through the re-formed chain, which every client follows. The whole history, before, across and after the
 * kill, passes {@link ConsistencyChecker} (no torn content, no version from nowhere, none older than a write
 * acknowledged or a read returned before the read began, so no read of uncommitted data that the kill then lost),
 * no write fails, and a fresh client reads every slot's last acknowledged version. The killed OSD is started
 * again before the next case (it is in no chain of the next file's until placed anew).
 */
class ConsistentReadsKillTest {
    private static final long DIR_HEARTBEAT_TIMEOUT_MS = 1_500;
    /** 3 s of load before the kill, the re-formation, then 6 s after it. */
    private static final long LOAD_MS = 9_000;
    private static final String VOLUME = "craq-kill";
    private static final ClientOptions.Builder OPTIONS = ClientOptions.builder().retryWindowMs(60_000);

    private static TestCluster cluster;
    /** The OSD the last case killed, started again by the next one. */
    private static String killedOsd;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.startChainProcesses(DIR_HEARTBEAT_TIMEOUT_MS);
        try (Client admin = cluster.client(OPTIONS)) {
            ConsistentReadsTest.createReplicatedVolume(admin, VOLUME);
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.closeLeavingNoProcess();
    }

    @Test
    void killDashNineOfTheHeadMidHistory() throws Exception {
        killMidHistory(0, 20261201L);
    }

    @Test
    void killDashNineOfTheMiddleMidHistory() throws Exception {
        killMidHistory(1, 20261202L);
    }

    @Test
    void killDashNineOfTheTailMidHistory() throws Exception {
        killMidHistory(2, 20261203L);
    }

    private void killMidHistory(int victimIndex, long seed) throws Exception {
        long startNanos = System.nanoTime();
        if (killedOsd != null) {
            cluster.restart(killedOsd);
            killedOsd = null;
        }
        cluster.awaitServicesAvailable();
        String path = "/history-" + victimIndex + "-" + seed;
        try (Client creator = cluster.client(OPTIONS)) {
            // Placeable once the MRC's OSD list shows all three again after the last case's restart.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                creator.openVolume(VOLUME).open(path, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644).close();
                return true;
            });
        }
        ConsistencyChecker checker = new ConsistencyChecker(ConsistencyLoad.SLOT_BYTES);
        long[] killedNanos = {0};
        long[] reformedNanos = {0};
        List<String> victim = new ArrayList<>();
        try (Client watcher = cluster.client(OPTIONS)) {
            org.xtreemfs.client.Volume volume = watcher.openVolume(VOLUME);
            List<String> chain = ReplicaChain.of(volume.fileLayout(path).getXlocs()).chainAt(0);
            assertThat(chain).hasSize(3);
            victim.add(chain.get(victimIndex));
            ConsistencyLoad.Outcome outcome = new ConsistencyLoad(cluster, VOLUME, path, seed, OPTIONS)
                    .run(checker, LOAD_MS, () -> {
                        killedOsd = "osd" + cluster.osdUuids().indexOf(victim.get(0));
                        killedNanos[0] = System.nanoTime();
                        cluster.kill(killedOsd, "KILL");
                        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                                .until(() -> volume.fileLayout(path).getXlocs().getVersion() > 1);
                        reformedNanos[0] = System.nanoTime();
                    });
            assertThat(outcome.chain()).isEqualTo(chain);
            ConsistentReadsTest.assertConsistent(checker, outcome);

            XLocSet reformed = volume.fileLayout(path).getXlocs();
            List<String> survivors = new ArrayList<>(chain);
            survivors.remove(victim.get(0));
            assertThat(reformed.getVersion()).isEqualTo(2);
            assertThat(ReplicaChain.of(reformed).chainAt(0)).as("the chain without the killed member, order kept")
                    .containsExactlyElementsOf(survivors);
        }
        long writesBefore = checker.writes() - checker.invokedFrom(true, killedNanos[0]);
        long readsBefore = checker.reads() - checker.invokedFrom(false, killedNanos[0]);
        long writesAfter = checker.invokedFrom(true, reformedNanos[0]);
        long readsAfter = checker.invokedFrom(false, reformedNanos[0]) - ConsistencyLoad.SLOTS;
        // A history on both sides of the kill, not a load that stopped at it.
        assertThat(writesBefore).as("writes before the kill").isGreaterThan(50);
        assertThat(readsBefore).as("reads before the kill").isGreaterThan(100);
        assertThat(writesAfter).as("writes through the re-formed chain").isGreaterThan(50);
        assertThat(readsAfter).as("reads through the re-formed chain (the final read-back not counted)")
                .isGreaterThan(100);
        System.out.printf("ConsistentReadsKillTest: replica %d (%s) killed, chain re-formed %d ms later; history of"
                + " %d writes and %d reads (%d and %d before the kill, %d and %d after the re-formation), no violation;"
                + " case took %d ms, load %s%n", victimIndex, victim.get(0),
                (reformedNanos[0] - killedNanos[0]) / 1_000_000L, checker.writes(), checker.reads(), writesBefore,
                readsBefore, writesAfter, readsAfter, (System.nanoTime() - startNanos) / 1_000_000L,
                java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim());
    }
}
