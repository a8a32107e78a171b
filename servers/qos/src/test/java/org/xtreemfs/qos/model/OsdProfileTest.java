package org.xtreemfs.qos.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OsdProfileTest {

  @Test
  void hddStreamsAloneAtTheMediaRateAndKeepAThirdToAHalfWhenShared() {
    // Proves the built-in HDD has the model's shape: one stream near the media rate; shared, every stream count
    // loses to positioning but none collapses (write-back batches writes, read-ahead segments serve reads).
    ThroughputCurve curve = OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL).sequentialThroughput();
    assertThat(curve.bytesPerSecond(1)).isGreaterThan(Units.mebibytes(80));
    for (int streams = 2; streams <= 16; streams++) {
      assertThat(curve.bytesPerSecond(streams)).isLessThan(curve.bytesPerSecond(1) / 2)
          .isGreaterThan(curve.bytesPerSecond(1) / 4);
    }
    assertThat(curve.admissibleBytesPerSecond(1000)).isEqualTo(curve.floorBytesPerSecond()).isPositive();
  }

  @Test
  void ssdGrowsWithStreamsUntilItsChannelsAreBusyThenStaysFlat() {
    // Proves the built-in SSD: a 128 KiB request uses 2 of 8 channels, so 4 streams fill it; IOPS far above an HDD.
    ThroughputCurve curve = OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL).sequentialThroughput();
    assertThat(curve.bytesPerSecond(4)).isEqualTo(4 * curve.bytesPerSecond(1));
    assertThat(curve.bytesPerSecond(16)).isEqualTo(curve.bytesPerSecond(4));
    assertThat(OsdProfiles.sataSsd(OsdUsageType.RANDOM).randomIops())
        .isGreaterThan(OsdProfiles.hdd7200(OsdUsageType.RANDOM).randomIops() * 100);
  }

  @Test
  void extrapolationContinuesTheLastDeclineDownToTheFloor() {
    // Proves the documented rule beyond the measured range: last slope, never below the floor, never rising.
    ThroughputCurve curve = new ThroughputCurve(new long[] {100, 110, 90, 80}, 55);
    assertThat(curve.bytesPerSecond(5)).isEqualTo(70);
    assertThat(curve.bytesPerSecond(6)).isEqualTo(60);
    assertThat(curve.bytesPerSecond(7)).isEqualTo(55);
    assertThat(curve.bytesPerSecond(Integer.MAX_VALUE)).isEqualTo(55);
    ThroughputCurve rising = new ThroughputCurve(new long[] {100, 120}, 10);
    assertThat(rising.bytesPerSecond(9)).isEqualTo(120);
    assertThat(new ThroughputCurve(new long[] {100}, 30).bytesPerSecond(2)).isEqualTo(30);
  }

  @Test
  void admissibleThroughputNeverIncreasesWithStreams() {
    // Proves admission uses a non-increasing curve, so releasing a stream never shrinks what others hold.
    ThroughputCurve curve = OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL).sequentialThroughput();
    assertThat(curve.admissibleBytesPerSecond(16)).isEqualTo(curve.bytesPerSecond(2)); // the low at 2 streams holds
    for (int streams = 1; streams < 100; streams++) {
      assertThat(curve.admissibleBytesPerSecond(streams + 1)).isLessThanOrEqualTo(curve.admissibleBytesPerSecond(streams));
      assertThat(curve.admissibleBytesPerSecond(streams)).isLessThanOrEqualTo(curve.bytesPerSecond(streams));
    }
  }

  @Test
  void buildsAProfileFromConfiguration() {
    // Proves configuration strings override the built-in figures and keep the unit system exact.
    OsdProfile profile = OsdProfiles.fromConfiguration(Map.of(OsdProfiles.KEY_USAGE_TYPE, "best-effort",
        OsdProfiles.KEY_DEVICE_CLASS, "hdd", OsdProfiles.KEY_CAPACITY, "500GiB",
        OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_CURVE, "100MiB/s, 90MiB/s", OsdProfiles.KEY_RANDOM_IOPS, "120"));
    assertThat(profile.usageType()).isEqualTo(OsdUsageType.BEST_EFFORT);
    assertThat(profile.capacityBytes()).isEqualTo(Units.gibibytes(500));
    assertThat(profile.sequentialThroughput().bytesPerSecond(2)).isEqualTo(Units.mebibytes(90));
    assertThat(profile.sequentialThroughput().floorBytesPerSecond()).isZero();
    assertThat(profile.randomIops()).isEqualTo(120);
    OsdProfile defaults = OsdProfiles.fromConfiguration(Map.of(OsdProfiles.KEY_USAGE_TYPE, "random",
        OsdProfiles.KEY_DEVICE_CLASS, "SSD"));
    assertThat(defaults).isEqualTo(OsdProfiles.sataSsd(OsdUsageType.RANDOM));
  }

  @Test
  void configurationErrorsNameTheKey() {
    // Proves a bad configuration value is refused with the key and the value in the message.
    assertThatThrownBy(() -> OsdProfiles.fromConfiguration(Map.of(OsdProfiles.KEY_DEVICE_CLASS, "hdd")))
        .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("usage_type: \"null\"");
    assertThatThrownBy(() -> OsdProfiles.fromConfiguration(Map.of(OsdProfiles.KEY_USAGE_TYPE, "random",
        OsdProfiles.KEY_DEVICE_CLASS, "hdd", OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_CURVE, "100MiB/s,fast")))
        .hasMessageStartingWith("sequential_throughput_curve: \"fast\"");
    assertThatThrownBy(() -> OsdProfiles.fromConfiguration(Map.of(OsdProfiles.KEY_USAGE_TYPE, "random",
        OsdProfiles.KEY_DEVICE_CLASS, "hdd", OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_CURVE, "100MiB/s",
        OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_FLOOR, "200MiB/s")))
        .hasMessageStartingWith("sequential_throughput_floor: \"200MiB/s\"");
  }
}
