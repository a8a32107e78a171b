package org.xtreemfs.qos.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VolumeShareTest {

  @Test
  void aShareCarriesOnlyItsTypesRate() {
    // Proves the share of a placement keeps the type's dimension of the per-OSD vector and drops the rest.
    ResourceVector perOsd = new ResourceVector(1L << 30, 33_333_334L, 1001);
    assertThat(VolumeShare.of(ReservationType.SEQUENTIAL, perOsd)).isEqualTo(VolumeShare.sequential(33_333_334L));
    assertThat(VolumeShare.of(ReservationType.RANDOM, perOsd)).isEqualTo(VolumeShare.random(1001));
    assertThat(VolumeShare.of(ReservationType.COLD, perOsd)).isEqualTo(VolumeShare.cold());
    assertThat(VolumeShare.of(ReservationType.BEST_EFFORT, perOsd)).isEqualTo(VolumeShare.BEST_EFFORT);
  }

  @Test
  void aRateThatDoesNotFitTheTypeIsRefusedNamingTheWireFieldAndValue() {
    // Proves the invariant: throughput > 0 exactly for SEQUENTIAL, IOPS > 0 exactly for RANDOM, no rates else.
    assertThatThrownBy(() -> VolumeShare.sequential(0)).isInstanceOf(InvalidQosValueException.class)
        .hasMessage("qos_share.throughput: \"0B/s\" must be positive in a SEQUENTIAL share");
    assertThatThrownBy(() -> VolumeShare.random(-1)).isInstanceOf(InvalidQosValueException.class)
        .hasMessageStartingWith("qos_share.iops: \"-1");
    assertThatThrownBy(() -> new VolumeShare(ReservationType.SEQUENTIAL, 1 << 20, 5))
        .isInstanceOf(InvalidQosValueException.class)
        .hasMessage("qos_share.iops: \"5IOPS\" must be 0 in a SEQUENTIAL share");
    assertThatThrownBy(() -> new VolumeShare(ReservationType.COLD, 1, 0))
        .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("qos_share.throughput: \"1B/s\"");
    assertThatThrownBy(() -> new VolumeShare(ReservationType.BEST_EFFORT, 0, 7))
        .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("qos_share.iops: \"7IOPS\"");
  }

  @Test
  void aShareCarriesTheVolumesWeightAndTheLimitOfItsTypesUnit() {
    // Proves of() keeps the weight and only the limit dimension of the type (IOPS for random, bytes/s else).
    ResourceVector perOsd = new ResourceVector(1L << 30, 100, 10);
    ResourceVector limitPerOsd = new ResourceVector(0, 300, 30);
    assertThat(VolumeShare.of(ReservationType.SEQUENTIAL, perOsd, 4, limitPerOsd))
        .isEqualTo(new VolumeShare(ReservationType.SEQUENTIAL, 100, 0, 4, 300, 0));
    assertThat(VolumeShare.of(ReservationType.RANDOM, perOsd, 2, limitPerOsd))
        .isEqualTo(new VolumeShare(ReservationType.RANDOM, 0, 10, 2, 0, 30));
    assertThat(VolumeShare.of(ReservationType.BEST_EFFORT, perOsd, 3, limitPerOsd))
        .isEqualTo(new VolumeShare(ReservationType.BEST_EFFORT, 0, 0, 3, 300, 0));
    assertThat(VolumeShare.sequential(5).weight()).isEqualTo(1);
    assertThat(VolumeShare.sequential(5).limited()).isFalse();
  }

  @Test
  void aShareRefusesTheSameWeightsAndLimitsAsAReservationNamingTheWireField() {
    // Proves the share applies the reservation's rule, with the qos_share. prefix of the wire field.
    assertThatThrownBy(() -> new VolumeShare(ReservationType.BEST_EFFORT, 0, 0, 0, 0, 0))
        .isInstanceOf(InvalidQosValueException.class)
        .hasMessage("qos_share.weight: \"0\" must be an integer from 1 to 1000");
    assertThatThrownBy(() -> new VolumeShare(ReservationType.SEQUENTIAL, 100, 0, 1, 99, 0))
        .hasMessageStartingWith("qos_share.limit: \"99B/s\" is below the reservation's 100B/s");
    assertThatThrownBy(() -> new VolumeShare(ReservationType.RANDOM, 0, 10, 1, 20, 0))
        .hasMessageStartingWith("qos_share.limit: \"20B/s\" is not allowed on a random volume");
  }
}
