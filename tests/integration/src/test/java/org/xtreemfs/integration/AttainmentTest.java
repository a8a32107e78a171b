package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.OsdVolumeFigures;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.qos.model.Units;

/**
 * A volume's attainment, end to end on real servers: an emulated OSD accounts the writes of a reserved volume,
 * puts the figures in its DIR heartbeat, the MRC sums them and the client API and xtfsutil show them. The
 * OSDs beat every 300 ms here, so figures show within a few seconds of the first write.
 */
class AttainmentTest {
    private static final long HEARTBEAT_PERIOD_MS = 300;
    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        String heartbeat = Long.toString(HEARTBEAT_PERIOD_MS);
        cluster = TestCluster.start(List.of(
                Map.of("osd.usage.type", "sequential", "osd.device.emulation", "ssd", "osd.heartbeat.periodMs",
                        heartbeat),
                Map.of("osd.usage.type", "best_effort", "osd.device.class", "ssd", "osd.heartbeat.periodMs",
                        heartbeat)), Map.of());
        client = cluster.qosClient();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void writesToAReservedVolumeShowAsAchievedThroughTheClientAndXtfsutil() throws Exception {
        String sequentialUuid = cluster.osdUuids().get(0);
        long oneStream = client.qosStatus().getOsdsList().stream()
                .filter(osd -> osd.getUuid().equals(sequentialUuid)).findFirst()
                .map(OsdQosState::getLimitThroughputBytesPerSecond).orElseThrow();
        long reservedBytesPerSecond = oneStream / 4;
        ToolRun made = ToolRun.of(new MkfsMain(), "--qos", "sequential", "--capacity", "1GiB", "--throughput",
                Units.formatBytesPerSecond(reservedBytesPerSecond), cluster.dirUrl() + "/reserved");
        assertThat(made.exitCode()).as(made.err()).isZero();
        assertThat(client.volumeAttainment("reserved").getOsdsCount()).as("no I/O yet, nothing reported").isZero();

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try (FileHandle file = client.openVolume("reserved").open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                    0644)) {
                byte[] block = new byte[128 * 1024];
                for (long offset = 0; writing.get(); offset = (offset + block.length) % (64L << 20)) {
                    file.write(offset, block);
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "attainment-writer");
        writer.start();
        try {
            AtomicReference<VolumeAttainment> seen = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(failure.get()).isNull();
                VolumeAttainment attainment = client.volumeAttainment("reserved");
                seen.set(attainment);
                assertThat(attainment.getAchievedCostPerSecond()).isPositive();
                assertThat(attainment.hasAttainment()).as("windows with demand judged").isTrue();
            });
            VolumeAttainment attainment = seen.get();
            assertThat(attainment.getCostUnit()).isEqualTo("bytes");
            // The placement is the one sequential OSD; it carries the whole reservation as its share.
            assertThat(attainment.getOsdsList()).extracting(OsdVolumeFigures::getOsdUuid)
                    .containsExactly(sequentialUuid);
            assertThat(attainment.getReservedCostPerSecond()).isEqualTo(reservedBytesPerSecond);
            assertThat(attainment.getOsds(0).getFigures().getWindowsWithDemand()).isPositive();
            assertThat(attainment.getAttainment()).isBetween(0.0, 1.0);
            assertThat(attainment.getPlacedOsdsNotReportingList()).isEmpty();

            ToolRun shown = ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/reserved/f");
            assertThat(shown.exitCode()).as(shown.err()).isZero();
            assertThat(shown.out()).containsPattern("attainment: +achieved \\S+ of \\S+ reserved \\(\\d+ %\\), queue \\d+"
                    + ", p99 [\\d.]+ ms \\(worst OSD\\), windows met [\\d.]+ % \\(worst OSD\\)")
                    .containsPattern("  OSD " + sequentialUuid + ": achieved \\S+ of \\S+ reserved .*windows met \\d+ of"
                            + " \\d+ .*heartbeat [\\d.]+ s ago");
        } finally {
            writing.set(false);
            writer.join();
        }
        assertThat(failure.get()).isNull();
    }
}
