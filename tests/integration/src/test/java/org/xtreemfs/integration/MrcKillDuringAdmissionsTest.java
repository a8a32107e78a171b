package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * The MRC process is killed with SIGKILL during a stream of admissions (mkfs with reservations) and restarted
 * on the same database: every admission mkfs acknowledged is in the ledger afterwards, none is there twice,
 * and no OSD carries more than its limit. Admissions that were in flight at the kill may or may not have
 * happened, but only once.
 */
class MrcKillDuringAdmissionsTest {
    private static final Map<String, String> SEQUENTIAL_HDD = Map.of("osd.usage.type", "sequential",
            "osd.device.class", "hdd");
    private static final int ACKNOWLEDGED_BEFORE_KILL = 4;
    private static final int ACKNOWLEDGED_AFTER_RESTART = 3;
    private TestCluster cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = TestCluster.startProcesses(List.of(SEQUENTIAL_HDD, SEQUENTIAL_HDD), Map.of());
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    @Test
    void acknowledgedAdmissionsSurviveKillDashNineOnceEach() throws Exception {
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        List<String> attempted = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> lastRefusal = new java.util.concurrent.atomic.AtomicReference<>("");
        Thread admissions = new Thread(() -> {
            for (int index = 0; !stop.get(); index++) {
                String name = "stream" + index;
                attempted.add(name);
                ToolRun run = ToolRun.of(new MkfsMain(), "--qos", "sequential", "--throughput", "64KiB/s",
                        "--capacity", "64MiB", "--timeout-ms", "2000", "--retries", "1", cluster.dirUrl() + "/" + name);
                if (run.exitCode() == 0) {
                    acknowledged.add(name);
                } else {
                    lastRefusal.set(name + ": " + run.err().strip());
                }
            }
        }, "admissions");
        admissions.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= ACKNOWLEDGED_BEFORE_KILL);
            cluster.kill("mrc", "KILL");
            int attemptsAtKill = attempted.size();
            // Let at least one admission fail against the dead MRC, then bring it back on the same database.
            await().atMost(Duration.ofSeconds(60)).until(() -> attempted.size() > attemptsAtKill + 1);
            cluster.restart("mrc");
            int acknowledgedAtRestart = acknowledged.size();
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> acknowledged.size() >= acknowledgedAtRestart + ACKNOWLEDGED_AFTER_RESTART);
            } catch (org.awaitility.core.ConditionTimeoutException timeout) {
                throw new AssertionError("after the restart " + (acknowledged.size() - acknowledgedAtRestart)
                        + " of " + ACKNOWLEDGED_AFTER_RESTART + " admissions were acknowledged (" + acknowledged.size()
                        + " in all, " + attempted.size() + " attempted); last refusal: " + lastRefusal.get(), timeout);
            }
        } finally {
            stop.set(true);
            admissions.join(60_000);
        }
        assertThat(admissions.isAlive()).isFalse();

        try (Client client = cluster.client()) {
            Map<String, Volume> volumes = client.listVolumes().stream()
                    .collect(Collectors.toMap(Volume::getName, volume -> volume));
            assertThat(volumes.keySet()).as("every acknowledged admission is there").containsAll(acknowledged);
            assertThat(volumes.keySet()).as("only attempted volumes exist").isSubsetOf(attempted);
            Map<String, Set<String>> expectedVolumesPerOsd = new HashMap<>();
            Map<String, long[]> expectedSharesPerOsd = new HashMap<>();
            for (Volume volume : volumes.values()) {
                assertThat(volume.hasPlacement()).as(volume.getName() + " has a placement").isTrue();
                for (String osd : volume.getPlacement().getOsdUuidsList()) {
                    expectedVolumesPerOsd.computeIfAbsent(osd, key -> new TreeSet<>()).add(volume.getId());
                    long[] shares = expectedSharesPerOsd.computeIfAbsent(osd, key -> new long[2]);
                    shares[0] += volume.getPlacement().getShareCapacityBytes();
                    shares[1] += volume.getPlacement().getShareThroughputBytesPerSecond();
                }
            }
            QosStatus ledger = client.qosStatus();
            assertThat(ledger.getOsdsList()).hasSize(2);
            for (OsdQosState osd : ledger.getOsdsList()) {
                Set<String> expected = expectedVolumesPerOsd.getOrDefault(osd.getUuid(), Set.of());
                assertThat(osd.getVolumeIdsList()).as("volumes on " + osd.getUuid() + ", each once")
                        .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
                long[] shares = expectedSharesPerOsd.getOrDefault(osd.getUuid(), new long[2]);
                assertThat(osd.getReservedCapacityBytes()).isEqualTo(shares[0]);
                assertThat(osd.getReservedThroughputBytesPerSecond()).isEqualTo(shares[1]);
                assertThat(osd.getReservedCapacityBytes()).isLessThanOrEqualTo(osd.getLimitCapacityBytes());
                assertThat(osd.getReservedThroughputBytesPerSecond())
                        .isLessThanOrEqualTo(osd.getLimitThroughputBytesPerSecond());
            }
        }
    }
}
