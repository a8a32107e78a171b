package org.xtreemfs.qos.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReservationTest {

  @Test
  void parsesTheMissionExamples() {
    // Proves the two reservations of mission §4 parse into exact bytes, bytes per second and IOPS.
    Reservation analytics = Reservation.parse("sequential", "200GiB", "150MiB/s", null);
    assertThat(analytics).isEqualTo(Reservation.sequential(Units.gibibytes(200), Units.mebibytes(150)));
    Reservation database = Reservation.parse("random", "50GiB", null, "2000");
    assertThat(database.demand()).isEqualTo(new ResourceVector(Units.gibibytes(50), 0, 2000));
    assertThat(Reservation.parse("best-effort", "1TiB", null, null).type()).isEqualTo(ReservationType.BEST_EFFORT);
  }

  @Test
  void refusesAPerformanceFigureOnCapacityOnlyTypes() {
    // Proves throughput or IOPS on cold or best-effort reservations is refused, naming the field.
    assertThatThrownBy(() -> Reservation.parse("cold", "1TiB", "10MiB/s", null))
        .isInstanceOf(InvalidQosValueException.class)
        .hasMessage("throughput: \"10MiB/s\" is not allowed on a cold reservation");
    assertThatThrownBy(() -> Reservation.parse("best-effort", "1TiB", null, "100"))
        .hasMessage("iops: \"100IOPS\" is not allowed on a best-effort reservation");
  }

  @Test
  void refusesMissingOrCrossedPerformanceFigures() {
    // Proves a sequential reservation needs throughput, a random one IOPS, and neither takes the other's.
    assertThatThrownBy(() -> Reservation.parse("sequential", "1TiB", null, null))
        .hasMessageStartingWith("throughput: ").hasMessageContaining("needs a positive throughput");
    assertThatThrownBy(() -> Reservation.parse("random", "1TiB", null, null))
        .hasMessageStartingWith("iops: ").hasMessageContaining("needs a positive iops");
    assertThatThrownBy(() -> Reservation.parse("random", "1TiB", "5MiB/s", "100"))
        .hasMessageStartingWith("throughput: ");
    assertThatThrownBy(() -> Reservation.parse("sequential", "0GiB", "5MiB/s", null))
        .hasMessageStartingWith("capacity: ").hasMessageContaining("positive");
    assertThatThrownBy(() -> Reservation.parse("fast", "1GiB", null, null)).hasMessageStartingWith("type: \"fast\"");
  }

  @Test
  void stripeSharesRoundUpSoTheyNeverCarryLessThanTheDemand() {
    // Proves ceilDivide gives shares whose sum covers the demand and exceeds it by less than the width.
    ResourceVector demand = new ResourceVector(1001, 7, 0);
    for (int width = 1; width <= 12; width++) {
      ResourceVector share = demand.ceilDivide(width);
      assertThat(share.capacityBytes() * width).isBetween(demand.capacityBytes(), demand.capacityBytes() + width - 1);
      assertThat(share.throughputBytesPerSecond() * width)
          .isBetween(demand.throughputBytesPerSecond(), demand.throughputBytesPerSecond() + width - 1);
      assertThat(share.iops()).isZero();
    }
  }
}
