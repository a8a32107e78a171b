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

  @Test
  void weightAndLimitAreParsedInTheTypesUnitAndDefaultToOneAndNone() {
    // Proves --weight and --limit reach the reservation, the limit in IOPS for random and bytes/s otherwise.
    Reservation plain = Reservation.parse("sequential", "1GiB", "100MiB/s", null);
    assertThat(plain.weight()).isEqualTo(1);
    assertThat(plain.limited()).isFalse();
    Reservation sequential = Reservation.parse("sequential", "1GiB", "100MiB/s", null, "3", "150MiB/s");
    assertThat(sequential.weight()).isEqualTo(3);
    assertThat(sequential.limitThroughputBytesPerSecond()).isEqualTo(150L << 20);
    assertThat(sequential.limitIops()).isZero();
    assertThat(sequential.toString()).isEqualTo("sequential 1GiB 100MiB/s weight 3 limit 150MiB/s");
    Reservation random = Reservation.parse("random", "1GiB", null, "200", null, "250");
    assertThat(random.limitIops()).isEqualTo(250);
    assertThat(random.limitThroughputBytesPerSecond()).isZero();
    assertThat(random.limit()).isEqualTo(new ResourceVector(0, 0, 250));
    Reservation bestEffort = Reservation.parse("best-effort", "1GiB", null, null, "2", "20MiB/s");
    assertThat(bestEffort.limitThroughputBytesPerSecond()).isEqualTo(20L << 20);
    assertThat(Reservation.parse("cold", "1GiB", null, null, null, "1MiB/s").limitThroughputBytesPerSecond())
        .isEqualTo(1L << 20);
    // A limit equal to the reservation is allowed (FlowSpec allows it): the volume gets exactly its reservation.
    assertThat(Reservation.parse("random", "1GiB", null, "200", null, "200").limitIops()).isEqualTo(200);
    // Weight and limit are no demand: admission sees the same vector with or without them.
    assertThat(sequential.demand()).isEqualTo(plain.demand());
  }

  @Test
  void refusesBadWeightsAndLimitsNamingTheFieldAndValue() {
    // Proves the one rule: weight in [1, 1000]; limit not negative, in the type's unit, at least the reservation.
    assertThatThrownBy(() -> Reservation.parse("best-effort", "1GiB", null, null, "0", null))
        .isInstanceOf(InvalidQosValueException.class).hasMessage("weight: \"0\" must be an integer from 1 to 1000");
    assertThatThrownBy(() -> Reservation.parse("best-effort", "1GiB", null, null, "1001", null))
        .hasMessage("weight: \"1001\" must be an integer from 1 to 1000");
    assertThatThrownBy(() -> Reservation.parse("best-effort", "1GiB", null, null, "2.5", null))
        .isInstanceOf(InvalidQosValueException.class).hasMessage("weight: \"2.5\" is not an integer; give e.g. 3");
    assertThatThrownBy(() -> Reservation.parse("sequential", "1GiB", "100MiB/s", null, null, "50MiB/s"))
        .isInstanceOf(InvalidQosValueException.class)
        .hasMessage("limit: \"50MiB/s\" is below the reservation's 100MiB/s; a limit must be at least the reservation");
    assertThatThrownBy(() -> Reservation.parse("random", "1GiB", null, "200", null, "199"))
        .hasMessage("limit: \"199IOPS\" is below the reservation's 200IOPS; a limit must be at least the reservation");
    // A random volume's limit is IOPS: a rate in bytes/s is not a count of operations.
    assertThatThrownBy(() -> Reservation.parse("random", "1GiB", null, "200", null, "5MiB/s"))
        .hasMessageStartingWith("limit: \"5MiB/s\"");
    assertThatThrownBy(() -> Reservation.parse("sequential", "1GiB", "1MiB/s", null, null, "fast"))
        .hasMessageStartingWith("limit: \"fast\"");
    // The record refuses what the parser cannot produce: a limit in the other unit, a negative one.
    assertThatThrownBy(() -> new Reservation(ReservationType.SEQUENTIAL, 1, 1, 0, 1, 0, 5))
        .hasMessage("limit: \"5IOPS\" is not allowed on a sequential volume; its limit is in bytes/s");
    assertThatThrownBy(() -> new Reservation(ReservationType.RANDOM, 1, 0, 1, 1, 5, 0))
        .hasMessage("limit: \"5B/s\" is not allowed on a random volume; its limit is in IOPS");
    assertThatThrownBy(() -> new Reservation(ReservationType.BEST_EFFORT, 1, 0, 0, 1, -1, 0))
        .hasMessageStartingWith("limit: \"-1").hasMessageEndingWith("must not be negative");
  }
}
