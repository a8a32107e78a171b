package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.qos.scheduler.Clusters.admitted;
import static org.xtreemfs.qos.scheduler.Clusters.rejected;
import static org.xtreemfs.qos.scheduler.Clusters.small;
import static org.xtreemfs.qos.scheduler.Clusters.withOsds;

import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;

/** What a rejection blames and what it offers instead, in the cases where rounding or the stream count matter. */
class RejectionReasonTest {
  private final ReservationScheduler scheduler = new ReservationScheduler();

  // Small IOPS figures round to 0 when the request is scaled down uniformly; the largest admissible
  // reservation must still be found (at least 1 IOPS), not "nothing of this type fits".
  @Test
  void aFewIopsWithTooMuchCapacityStillOfferWhatFits() {
    OsdProfile hdd = OsdProfiles.hdd7200(OsdUsageType.RANDOM);
    ClusterState cluster = withOsds("r", hdd);
    Reservation request = Reservation.random(4 * hdd.capacityBytes(), 3);
    Rejection rejection = rejected(scheduler, cluster, "v", request);
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).containsExactly(Dimension.CAPACITY);
    Reservation largest = rejection.largestAdmissible().orElseThrow(
        () -> new AssertionError("no largest admissible reservation offered: " + rejection.message()));
    assertThat(rejection.message()).doesNotContain("nothing of this type fits");
    // The offer is admitted, within the request, and no dimension of it can grow by one unit.
    admitted(scheduler, cluster, "v", largest);
    assertThat(largest.demand().fitsWithin(request.demand())).isTrue();
    assertThat(largest.iops()).as("IOPS fit as requested").isEqualTo(3);
    rejected(scheduler, cluster, "v", Reservation.random(largest.capacityBytes() + 1, largest.iops()));
  }

  // The same rounding on an online change: the stripe takes 1 IOPS with its capacity, so that is offered.
  @Test
  void aChangeWithAFewIopsStillOffersWhatTheStripeTakes() {
    ClusterState state = admitted(scheduler, withOsds("r", small(OsdUsageType.RANDOM)), "v",
        Reservation.random(100, 1));
    long capacityBytes = small(OsdUsageType.RANDOM).capacityBytes();
    Admission change = scheduler.readmit(state, "v", Reservation.random(4 * capacityBytes, 3));
    Rejection rejection = ((Admission.Rejected) change).rejection();
    Reservation largest = rejection.largestAdmissible().orElseThrow(
        () -> new AssertionError("no largest admissible change offered: " + rejection.message()));
    assertThat(largest).isEqualTo(Reservation.random(capacityBytes, 3));
    assertThat(scheduler.readmit(state, "v", largest)).isInstanceOf(Admission.Admitted.class);
  }

  // When the stream a new sequential volume adds leaves no throughput for it, throughput is short, not
  // capacity: the OSD has plenty of capacity left.
  @Test
  void aStreamThatExhaustsTheCurveBlamesThroughputOnly() {
    OsdProfile profile = small(OsdUsageType.SEQUENTIAL);
    long atTwoStreams = profile.limits(2).throughputBytesPerSecond();
    ClusterState state = withOsds("a", profile);
    state = admitted(scheduler, state, "v1", Reservation.sequential(10, atTwoStreams - 20));
    state = admitted(scheduler, state, "v2", Reservation.sequential(10, 10));
    assertThat(state.osd("a").orElseThrow().headroom(Dimension.THROUGHPUT, true)).as("a third stream fits nothing")
        .isZero();
    Rejection rejection = rejected(scheduler, state, "v3", Reservation.sequential(10, 1));
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).containsExactly(Dimension.THROUGHPUT);
    assertThat(rejection.message()).contains("throughput short by 1B/s").doesNotContain("capacity short");
    assertThat(rejection.largestAdmissible()).isEmpty();
  }

  // Two dimensions that each fit alone but never on the same OSD: both are named, none is silently dropped.
  @Test
  void dimensionsThatOnlyFailTogetherAreBothNamed() {
    OsdProfile profile = small(OsdUsageType.RANDOM);
    ClusterState state = withOsds("a", profile, "b", profile);
    state = admitted(scheduler, state, "full-iops", Reservation.random(10, profile.randomIops()));
    state = admitted(scheduler, state, "full-capacity", Reservation.random(profile.capacityBytes(), 1));
    // One OSD has capacity but no IOPS, the other the reverse (minus the 1 IOPS above).
    Rejection rejection = rejected(new ReservationScheduler(new SchedulerPolicy(PlacementRanking.ALIGNED_BEST_FIT, 1)),
        state, "v", Reservation.random(500, 20));
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension)
        .containsExactlyInAnyOrder(Dimension.CAPACITY, Dimension.IOPS);
  }

  // Without a matching OSD the message names the type as the tools spell it, and offers nothing.
  @Test
  void noMatchingOsdNamesTheTypeAsToolsSpellIt() {
    Rejection rejection = rejected(scheduler, withOsds("s", small(OsdUsageType.SEQUENTIAL)), "v",
        Reservation.bestEffort(1));
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.NO_MATCHING_OSD);
    assertThat(rejection.message()).contains("no available OSD accepts best-effort volumes")
        .endsWith("nothing of this type fits now");
  }
}
