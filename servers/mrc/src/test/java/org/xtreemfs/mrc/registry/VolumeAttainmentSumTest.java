package org.xtreemfs.mrc.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.OsdVolumeAttainment;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.interfaces.mrc.OsdVolumeFigures;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.mrc.admission.OsdReport;

/** The per-volume sums over the OSDs' heartbeat reports: which OSDs count and how each figure combines. */
class VolumeAttainmentSumTest {
    private static final Volume RESERVED = Volume.newBuilder().setId("id-r").setName("reserved").build();
    private static final Volume PLAIN = Volume.newBuilder().setId("id-p").setName("plain").build();
    private static final Volume IDLE = Volume.newBuilder().setId("id-i").setName("idle").build();

    private static VolumeAttainmentReport figures(String volumeId, long reserved, double achieved, int queueDepth,
            Double p99Ms, int windowsWithDemand, int windowsMet) {
        VolumeAttainmentReport.Builder report = VolumeAttainmentReport.newBuilder().setVolumeId(volumeId)
                .setReservedCostPerSecond(reserved).setAchievedCostPerSecond(achieved)
                .setQueueDepthRequests(queueDepth).setWindowsWithDemand(windowsWithDemand).setWindowsMet(windowsMet);
        if (p99Ms != null) {
            report.setLatencyP99Ms(p99Ms);
        }
        return report.build();
    }

    private static OsdReport osd(String uuid, boolean available, String costUnit, VolumeAttainmentReport... volumes) {
        return new OsdReport(uuid, available, Optional.empty(),
                org.xtreemfs.interfaces.common.OsdProfile.getDefaultInstance(), "", 1234,
                OsdVolumeAttainment.newBuilder().setCostUnit(costUnit).addAllVolumes(List.of(volumes)).build());
    }

    private static List<VolumeAttainment> sum(Map<String, List<String>> placements, OsdReport... osds) {
        return VolumeAttainmentSum.sum(List.of(osds), List.of(RESERVED, PLAIN, IDLE),
                volumeId -> Optional.ofNullable(placements.get(volumeId)));
    }

    @Test
    void sumsRatesAndQueuesTakesTheWorstLatencyAndTheWorstOsdsFractionOfWindowsMet() {
        List<VolumeAttainment> sums = sum(Map.of("id-r", List.of("a", "b")),
                osd("b", true, "bytes", figures("id-r", 1000, 950.5, 2, 30.0, 100, 60)),
                osd("a", true, "bytes", figures("id-r", 1000, 1200.0, 1, 12.0, 50, 50),
                        figures("id-p", 0, 70.0, 0, null, 0, 0)));
        assertThat(sums).extracting(VolumeAttainment::getVolumeName).containsExactly("plain", "reserved");
        VolumeAttainment reserved = sums.get(1);
        assertThat(reserved.getVolumeId()).isEqualTo("id-r");
        assertThat(reserved.getCostUnit()).isEqualTo("bytes");
        assertThat(reserved.getReservedCostPerSecond()).isEqualTo(2000);
        assertThat(reserved.getAchievedCostPerSecond()).isEqualTo(2150.5);
        assertThat(reserved.getQueueDepthRequests()).isEqualTo(3);
        assertThat(reserved.getLatencyP99Ms()).isEqualTo(30.0);
        // OSD a met every window, b 60 %: the volume met its reservation in at most 60 % of the seconds.
        assertThat(reserved.getAttainment()).isEqualTo(0.6);
        assertThat(reserved.getOsdsList()).extracting(OsdVolumeFigures::getOsdUuid).containsExactly("a", "b");
        assertThat(reserved.getOsds(0).getLastHeartbeatMs()).isEqualTo(1234);
        assertThat(reserved.getPlacedOsdsNotReportingList()).isEmpty();
        VolumeAttainment plain = sums.get(0);
        assertThat(plain.hasAttainment()).as("no reservation, no windows judged").isFalse();
        assertThat(plain.hasLatencyP99Ms()).isFalse();
        assertThat(plain.getAchievedCostPerSecond()).isEqualTo(70.0);
    }

    @Test
    void aDeadOsdIsListedButNotSummedAndCountsAsNotReporting() {
        List<VolumeAttainment> sums = sum(Map.of("id-r", List.of("a", "b", "c")),
                osd("a", true, "4KiB-io", figures("id-r", 100, 95.0, 0, 5.0, 10, 10)),
                osd("b", false, "4KiB-io", figures("id-r", 100, 500.0, 9, 900.0, 10, 0)));
        VolumeAttainment reserved = sums.get(0);
        assertThat(reserved.getCostUnit()).isEqualTo("4KiB-io");
        assertThat(reserved.getReservedCostPerSecond()).isEqualTo(100);
        assertThat(reserved.getAchievedCostPerSecond()).isEqualTo(95.0);
        assertThat(reserved.getQueueDepthRequests()).isZero();
        assertThat(reserved.getLatencyP99Ms()).isEqualTo(5.0);
        assertThat(reserved.getAttainment()).isEqualTo(1.0);
        assertThat(reserved.getOsdsList()).extracting(OsdVolumeFigures::getAvailable).containsExactly(true, false);
        assertThat(reserved.getPlacedOsdsNotReportingList()).containsExactly("b", "c");
    }

    @Test
    void aPlacedVolumeNoOsdReportsIsShownEmptyAndAnUnplacedOneNotAtAll() {
        List<VolumeAttainment> sums = sum(Map.of("id-r", List.of("a")), osd("a", true, "bytes"));
        assertThat(sums).hasSize(1);
        assertThat(sums.get(0).getVolumeName()).isEqualTo("reserved");
        assertThat(sums.get(0).getOsdsCount()).isZero();
        assertThat(sums.get(0).getCostUnit()).isEmpty();
        assertThat(sums.get(0).hasAttainment()).isFalse();
        assertThat(sums.get(0).getPlacedOsdsNotReportingList()).containsExactly("a");
    }

    @Test
    void osdsOfDifferentCostUnitsGiveTheUnitMixed() {
        List<VolumeAttainment> sums = sum(Map.of(), osd("a", true, "bytes", figures("id-p", 0, 1.0, 0, null, 0, 0)),
                osd("b", true, "4KiB-io", figures("id-p", 0, 1.0, 0, null, 0, 0)));
        assertThat(sums.get(0).getCostUnit()).isEqualTo(VolumeAttainmentSum.MIXED_COST_UNIT);
    }

    @Test
    void volumesTheMrcDoesNotKnowAreLeftOut() {
        assertThat(sum(Map.of(), osd("a", true, "bytes", figures("another-mrcs", 10, 1.0, 0, null, 1, 1))))
                .isEmpty();
    }
}
