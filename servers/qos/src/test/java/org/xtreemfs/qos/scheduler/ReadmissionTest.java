package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.xtreemfs.qos.scheduler.Clusters.admitted;
import static org.xtreemfs.qos.scheduler.Clusters.assertConsistentAndNotOverCommitted;
import static org.xtreemfs.qos.scheduler.Clusters.withOsds;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;

class ReadmissionTest {
  private final ReservationScheduler scheduler = new ReservationScheduler();

  private static OsdProfile random(long capacityBytes, long iops) {
    return new OsdProfile(OsdUsageType.RANDOM, DeviceClass.SSD, capacityBytes, ThroughputCurve.flat(1000), iops);
  }

  // A grown reservation that still fits stays on the same OSDs in the same order, with the new share booked.
  @Test
  void growingWithinTheStripeKeepsThePlacement() {
    ClusterState state = withOsds("a", random(1000, 100), "b", random(1000, 100), "c", random(1000, 100));
    state = admitted(scheduler, state, "v", Reservation.random(1000, 150));
    Placement before = state.placement("v").orElseThrow();
    assertThat(before.stripeWidth()).isEqualTo(2);
    Admission change = scheduler.readmit(state, "v", Reservation.random(1200, 200));
    assertThat(change).isInstanceOf(Admission.Admitted.class);
    ClusterState after = ((Admission.Admitted) change).state();
    assertThat(after.placement("v").orElseThrow().osdUuids()).isEqualTo(before.osdUuids());
    for (String uuid : before.osdUuids()) {
      assertThat(after.osd(uuid).orElseThrow().committed().iops()).isEqualTo(100);
    }
    assertConsistentAndNotOverCommitted(after);
    // Shrinking back gives exactly the state of a fresh admission of the smaller reservation.
    ClusterState shrunk = ((Admission.Admitted) scheduler.readmit(after, "v", Reservation.random(1000, 150))).state();
    assertThat(shrunk).isEqualTo(state);
  }

  // A change the stripe cannot take is refused naming the short dimension and what the stripe would take,
  // although other OSDs have room: the placement does not move.
  @Test
  void growingBeyondTheStripeIsRefusedWithTheLargestItTakes() {
    ClusterState state = withOsds("a", random(1000, 100), "b", random(1000, 100), "c", random(1000, 100));
    state = admitted(scheduler, state, "v", Reservation.random(100, 80));
    state = admitted(scheduler, state, "w", Reservation.random(100, 50));
    String vOsd = state.placement("v").orElseThrow().osdUuids().get(0);
    Admission change = scheduler.readmit(state, "v", Reservation.random(100, 101));
    assertThat(change).isInstanceOf(Admission.Rejected.class);
    Rejection rejection = ((Admission.Rejected) change).rejection();
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.STRIPE_FULL);
    assertThat(rejection.shortfalls()).singleElement().satisfies(shortfall -> {
      assertThat(shortfall.dimension()).isEqualTo(Dimension.IOPS);
      assertThat(shortfall.largestAdmissible()).isEqualTo(100);
    });
    assertThat(rejection.message()).contains("its OSDs have no room").contains("largest its OSDs take now");
    assertThat(state.osd(vOsd).orElseThrow().committed().iops()).isEqualTo(80);
  }

  // A type change is not a change of figures: it is refused as an argument error.
  @Test
  void theTypeCannotChangeOnline() {
    ClusterState state = admitted(scheduler, withOsds("a", random(1000, 100)), "v", Reservation.random(100, 10));
    assertThatThrownBy(() -> scheduler.readmit(state, "v", Reservation.cold(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot change");
    assertThatThrownBy(() -> scheduler.readmit(state, "nope", Reservation.random(1, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
  }

  // An unavailable OSD keeps what it carries but takes nothing new, and free resources leave it out.
  @Test
  void unavailableOsdsTakeNoNewVolumes() {
    ClusterState state = withOsds("a", random(1000, 100), "b", random(1000, 100));
    state = admitted(scheduler, state, "v", Reservation.random(100, 60));
    String carrier = state.placement("v").orElseThrow().osdUuids().get(0);
    String other = carrier.equals("a") ? "b" : "a";
    Admission placed = scheduler.admit(state, "w", Reservation.random(100, 30), Set.of(other));
    assertThat(((Admission.Admitted) placed).placement().osdUuids()).containsExactly(carrier);
    Admission refused = scheduler.admit(state, "w", Reservation.random(100, 50), Set.of(other));
    assertThat(refused).isInstanceOf(Admission.Rejected.class);
    assertThat(scheduler.freeResources(state, Set.of(other)).headroom(ReservationType.RANDOM).iopsMax()).isEqualTo(40);
    assertThat(scheduler.freeResources(state).headroom(ReservationType.RANDOM).iopsMax()).isEqualTo(100);
  }
}
