package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.SeededCases;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.Units;

class ClusterStateCodecTest {
  private final ReservationScheduler scheduler = new ReservationScheduler();

  private ClusterState sample() {
    ClusterState state = Clusters.withOsds("be", OsdProfiles.hdd7200(OsdUsageType.BEST_EFFORT),
        "rnd", OsdProfiles.sataSsd(OsdUsageType.RANDOM), "seq", OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
    state = Clusters.admitted(scheduler, state, "vol-seq", Reservation.sequential(Units.gibibytes(200),
        Units.mebibytes(50)));
    state = Clusters.admitted(scheduler, state, "vol-rnd", Reservation.random(Units.gibibytes(50), 2000));
    state = Clusters.admitted(scheduler, state, "vol-be", new Reservation(ReservationType.BEST_EFFORT,
        Units.gibibytes(10), 0, 0, 3, Units.mebibytes(20), 0));
    return Clusters.admitted(scheduler, state, "vol-cold", Reservation.cold(Units.tebibytes(1)));
  }

  @Test
  void roundTripKeepsEveryOsdTypeAndPlacement() {
    // Proves decode(encode(s)) equals s, including the best-effort OSD type the earlier prototype lost.
    ClusterState state = sample();
    ClusterState decoded = ClusterStateCodec.decode(ClusterStateCodec.encode(state));
    assertThat(decoded).isEqualTo(state);
    assertThat(decoded.osd("be").orElseThrow().profile().usageType()).isEqualTo(OsdUsageType.BEST_EFFORT);
    assertThat(decoded.placement("vol-be").orElseThrow().osdUuids()).containsExactly("be");
    assertThat(decoded.placement("vol-be").orElseThrow().reservation().weight()).isEqualTo(3);
    assertThat(decoded.placement("vol-be").orElseThrow().reservation().limitThroughputBytesPerSecond())
        .isEqualTo(Units.mebibytes(20));
    assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(ClusterState.empty()))).isEqualTo(ClusterState.empty());
  }

  @Test
  void refusesCorruptOrTruncatedInput() {
    // Proves bad bytes give an IllegalArgumentException that says what is wrong, never a silent partial state.
    byte[] encoded = ClusterStateCodec.encode(sample());
    byte[] badMagic = encoded.clone();
    badMagic[0] ^= 1;
    assertThatThrownBy(() -> ClusterStateCodec.decode(badMagic)).hasMessageContaining("magic");
    assertThatThrownBy(() -> ClusterStateCodec.decode(Arrays.copyOf(encoded, encoded.length - 3)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
    assertThatThrownBy(() -> ClusterStateCodec.decode(Arrays.copyOf(encoded, encoded.length + 1)))
        .hasMessageContaining("trailing");
  }

  @Test
  void arbitraryBytesNeverEscapeAsAnythingButIllegalArgument() {
    // Proves malformed saved state cannot crash the MRC with an unexpected exception type.
    byte[] encoded = ClusterStateCodec.encode(sample());
    SeededCases.check(0xC0DEC_000L, 3000, random -> {
      byte[] noise = new byte[SeededCases.between(random, 0, 255)];
      random.nextBytes(noise);
      byte[] corrupted = encoded.clone();
      for (int index = 0; index < Math.min(noise.length, corrupted.length); index++) {
        corrupted[(index * 7919) % corrupted.length] ^= noise[index];
      }
      try {
        ClusterState decoded = ClusterStateCodec.decode(corrupted);
        Clusters.assertConsistentAndNotOverCommitted(decoded);
      } catch (IllegalArgumentException expected) {
        assertThat(expected.getMessage()).isNotBlank();
      }
    });
  }
}
