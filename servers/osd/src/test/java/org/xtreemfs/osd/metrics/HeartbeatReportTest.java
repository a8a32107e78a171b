package org.xtreemfs.osd.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.OsdVolumeAttainment;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;

/** The per-volume summary an OSD's DIR heartbeat carries: its figures, its order and its bound. */
class HeartbeatReportTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    private final AtomicLong nowNanos = new AtomicLong();
    private final VolumeAccounting accounting = new VolumeAccounting(SECOND, 300, 100, 60 * SECOND, 100);

    private VolumeMetrics metrics() {
        return new VolumeMetrics(accounting, nowNanos::get, VolumeMetrics.CostUnit.BYTES, SECOND);
    }

    /** Completes {@code cost} of the volume inside window {@code window} (queued 10 ms, then answered). */
    private void complete(String volume, long reservation, long cost, int window) {
        long atNanos = window * SECOND + 100 * MS;
        accounting.enqueued(volume, reservation, cost, atNanos);
        accounting.released(volume, cost, atNanos + 10 * MS);
        accounting.completed(volume, cost, cost, 10 * MS, atNanos + 10 * MS);
    }

    @Test
    void achievedIsTheMeanOfTheLastWindowsOfOneHeartbeatPeriod() {
        complete("v", 1000, 10_000, 0); // before the averaged period: not in the mean
        complete("v", 1000, 300, 1);
        complete("v", 1000, 600, 2);
        complete("v", 1000, 900, 3);
        nowNanos.set(4 * SECOND + 500 * MS);
        OsdVolumeAttainment report = metrics().heartbeatReport(64, 3);
        assertThat(report.getCostUnit()).isEqualTo("bytes");
        assertThat(report.getAveragedWindows()).isEqualTo(3);
        assertThat(report.getVolumesOmitted()).isZero();
        VolumeAttainmentReport volume = report.getVolumes(0);
        assertThat(volume.getVolumeId()).isEqualTo("v");
        assertThat(volume.getReservedCostPerSecond()).isEqualTo(1000);
        assertThat(volume.getAchievedCostPerSecond()).isEqualTo(600.0);
        assertThat(volume.getLatencyP99Ms()).isEqualTo(10.0);
        // Windows 0..3 had demand, each backlogged 10 ms (entitled to 10, 9 meets it): all met. The open
        // window 4 is not counted.
        assertThat(volume.getWindowsWithDemand()).isEqualTo(4);
        assertThat(volume.getWindowsMet()).isEqualTo(4);
    }

    @Test
    void aVolumeWithFewerWindowsThanThePeriodIsAveragedOverThoseItHas() {
        complete("v", 0, 800, 0);
        nowNanos.set(SECOND);
        VolumeAttainmentReport volume = metrics().heartbeatReport(64, 5).getVolumes(0);
        assertThat(volume.getAchievedCostPerSecond()).isEqualTo(800.0);
        assertThat(volume.getReservedCostPerSecond()).isZero();
    }

    @Test
    void aVolumeWithoutLatencySamplesHasNoP99() {
        accounting.enqueued("waiting", 1000, 100, 0);
        nowNanos.set(SECOND);
        VolumeAttainmentReport volume = metrics().heartbeatReport(64, 5).getVolumes(0);
        assertThat(volume.hasLatencyP99Ms()).isFalse();
        assertThat(volume.getQueueDepthRequests()).isEqualTo(1);
    }

    @Test
    void beyondTheBoundReservedVolumesStayAndTheRestAreCounted() {
        complete("best-effort-busy", 0, 5000, 0);
        complete("best-effort-quiet", 0, 10, 0);
        complete("reserved-quiet", 100, 1, 0);
        complete("reserved-busy", 100, 50, 0);
        nowNanos.set(SECOND);
        OsdVolumeAttainment report = metrics().heartbeatReport(3, 1);
        assertThat(report.getVolumesList()).extracting(VolumeAttainmentReport::getVolumeId)
                .containsExactly("reserved-busy", "reserved-quiet", "best-effort-busy");
        assertThat(report.getVolumesOmitted()).isEqualTo(1);
        assertThat(metrics().heartbeatReport(0, 1).getVolumesOmitted()).isEqualTo(4);
    }

    @Test
    void aBadBoundIsRefusedNamingIt() {
        assertThatThrownBy(() -> metrics().heartbeatReport(64, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64, 0");
    }
}
