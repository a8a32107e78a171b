package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.interfaces.mrc.OsdVolumeFigures;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.qos.model.Units;

class DescribeTest {
    // The figure that motivated the rule: a free capacity printed as "253726324KiB".
    @Test
    void sizesAreHumanAndRoundedDown() {
        assertThat(Describe.size(253726324L * 1024)).isEqualTo("241.75GiB");
        assertThat(Describe.size(Units.tebibytes(2))).isEqualTo("2TiB");
        assertThat(Describe.size(Units.mebibytes(1))).isEqualTo("1MiB");
        assertThat(Describe.size(Units.gibibytes(1) * 19 / 10)).isEqualTo("1945.5MiB");
        assertThat(Describe.size(131072)).isEqualTo("128KiB");
        assertThat(Describe.size(10239)).isEqualTo("10239B");
        assertThat(Describe.size(10240 + 255)).isEqualTo("10KiB");
        assertThat(Describe.size(10240 + 256)).isEqualTo("10.25KiB");
        assertThat(Describe.size(0)).isEqualTo("0B");
        assertThat(Describe.rate(Units.kibibytes(33280))).isEqualTo("32.5MiB/s");
        assertThatThrownBy(() -> Describe.size(-1)).hasMessageContaining("-1");
    }

    // What a tool shows as free can be typed back into mkfs: it parses, never above the real figure, and
    // loses less than 2.5 % of it (fixed seed, sizes across every unit).
    @Test
    void aShownSizeParsesBackToAtMostTheValue() {
        SplittableRandom random = new SplittableRandom(8);
        for (int sample = 0; sample < 20_000; sample++) {
            long bytes = random.nextLong(1L << random.nextInt(1, 60));
            String shown = Describe.size(bytes);
            long parsed = Units.parseBytes("capacity", shown);
            assertThat(parsed).as("%d shown as %s", bytes, shown).isLessThanOrEqualTo(bytes);
            assertThat(bytes - parsed).as("%d shown as %s", bytes, shown).isLessThanOrEqualTo(bytes / 40);
            assertThat(Units.parseBytesPerSecond("throughput", Describe.rate(bytes))).isEqualTo(parsed);
        }
    }

    private static OsdVolumeFigures osd(String uuid, boolean available, long reserved, double achieved, int met,
            int withDemand) {
        return OsdVolumeFigures.newBuilder().setOsdUuid(uuid).setAvailable(available).setLastHeartbeatMs(8_000)
                .setFigures(VolumeAttainmentReport.newBuilder().setReservedCostPerSecond(reserved)
                        .setAchievedCostPerSecond(achieved).setQueueDepthRequests(1).setLatencyP99Ms(12.25)
                        .setWindowsMet(met).setWindowsWithDemand(withDemand))
                .build();
    }

    @Test
    void attainmentShowsTheSumThenEachOsdThenThePlacedOsdsThatReportNothing() {
        VolumeAttainment volume = VolumeAttainment.newBuilder().setVolumeName("v").setCostUnit("bytes")
                .setReservedCostPerSecond(2 << 20).setAchievedCostPerSecond(3 << 19).setQueueDepthRequests(2)
                .setLatencyP99Ms(12.25).setAttainment(0.75)
                .addOsds(osd("a", true, 1 << 20, 1 << 20, 4, 4)).addOsds(osd("b", true, 1 << 20, 1 << 19, 3, 4))
                .addOsds(osd("c", false, 1 << 20, 0, 0, 0)).addPlacedOsdsNotReporting("c").build();
        assertThat(Describe.attainment(volume, 10_500)).containsExactly(
                "attainment:       achieved 1536KiB/s of 2MiB/s reserved (75 %), queue 2, p99 12.3 ms (worst OSD),"
                        + " windows met 75.0 % (worst OSD)",
                "  OSD a: achieved 1MiB/s of 1MiB/s reserved (100 %), queue 1, p99 12.3 ms, windows met 4 of 4"
                        + " (100.0 %), heartbeat 2.5 s ago",
                "  OSD b: achieved 512KiB/s of 1MiB/s reserved (50 %), queue 1, p99 12.3 ms, windows met 3 of 4"
                        + " (75.0 %), heartbeat 2.5 s ago",
                "  OSD c: achieved 0B/s of 1MiB/s reserved (0 %), queue 1, p99 12.3 ms, heartbeat 2.5 s ago"
                        + " (unavailable: not summed)",
                "  placed OSDs reporting nothing for it: c");
    }

    @Test
    void attainmentOnRandomOsdsIsInIopsAndWithoutReportsSaysSo() {
        VolumeAttainment random = VolumeAttainment.newBuilder().setCostUnit("4KiB-io").setAchievedCostPerSecond(80)
                .addOsds(osd("a", true, 0, 80, 0, 0)).build();
        assertThat(Describe.attainment(random, 8_000).get(0))
                .isEqualTo("attainment:       achieved 80 IOPS (no reservation), queue 0");
        assertThat(Describe.attainment(VolumeAttainment.getDefaultInstance(), 0).get(0))
                .startsWith("attainment:       no OSD reports this volume");
    }
}
