package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.qos.scheduler.Clusters.admitted;
import static org.xtreemfs.qos.scheduler.Clusters.rejected;
import static org.xtreemfs.qos.scheduler.Clusters.small;
import static org.xtreemfs.qos.scheduler.Clusters.withOsds;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.ThroughputCurve;

class ReservationSchedulerTest {
  private final ReservationScheduler scheduler = new ReservationScheduler();

  @Test
  void eachTypeGoesOnlyToMatchingOsdsAndColdGoesAnywhere() {
    // Proves the matching rule: equal types, best-effort only on best-effort OSDs, cold on any OSD.
    ClusterState cluster = withOsds("rnd", small(OsdUsageType.RANDOM), "seq", small(OsdUsageType.SEQUENTIAL));
    ClusterState state = admitted(scheduler, cluster, "s", Reservation.sequential(100, 50));
    state = admitted(scheduler, state, "r", Reservation.random(100, 10));
    state = admitted(scheduler, state, "c", Reservation.cold(100));
    assertThat(state.placement("s").orElseThrow().osdUuids()).containsExactly("seq");
    assertThat(state.placement("r").orElseThrow().osdUuids()).containsExactly("rnd");
    assertThat(state.placement("c").orElseThrow().osdUuids()).hasSize(1);
    Rejection bestEffort = rejected(scheduler, state, "b", Reservation.bestEffort(1));
    assertThat(bestEffort.reason()).isEqualTo(Rejection.Reason.NO_MATCHING_OSD);
    assertThat(bestEffort.largestAdmissible()).isEmpty();
    ClusterState withBestEffort = state.withOsdAdded("be", small(OsdUsageType.BEST_EFFORT));
    assertThat(admitted(scheduler, withBestEffort, "b", Reservation.bestEffort(1)).placement("b").orElseThrow()
        .osdUuids()).containsExactly("be");
  }

  @Test
  void aNewStreamIsCheckedAgainstEveryVolumeOnTheOsd() {
    // Proves a small sequential volume is refused when its extra stream lowers the OSD below what others hold.
    ClusterState state = withOsds("a", small(OsdUsageType.SEQUENTIAL));
    long atTwoStreams = small(OsdUsageType.SEQUENTIAL).limits(2).throughputBytesPerSecond();
    long atThreeStreams = small(OsdUsageType.SEQUENTIAL).limits(3).throughputBytesPerSecond();
    state = admitted(scheduler, state, "v1", Reservation.sequential(10, atTwoStreams - 20));
    state = admitted(scheduler, state, "v2", Reservation.sequential(10, 10));
    long freeAtTwoStreams = atTwoStreams - state.osd("a").orElseThrow().committed().throughputBytesPerSecond();
    assertThat(freeAtTwoStreams).isPositive();
    assertThat(atThreeStreams).isLessThan(atTwoStreams - freeAtTwoStreams);
    Rejection rejection = rejected(scheduler, state, "v3", Reservation.sequential(10, 1));
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.INSUFFICIENT_RESOURCES);
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).contains(Dimension.THROUGHPUT);
    assertThat(rejection.message()).contains("throughput short by 1B/s");
    assertThat(scheduler.freeResources(state).headroom(ReservationType.SEQUENTIAL).throughputBytesPerSecondMax())
        .isZero();
    assertThat(admitted(scheduler, state, "r", Reservation.cold(10)).osd("a").orElseThrow().sequentialStreams())
        .as("a cold volume adds no stream").isEqualTo(2);
  }

  @Test
  void stripesOverTheSmallestNumberOfOsdsWithEqualShares() {
    // Proves a volume larger than any OSD is striped over the fewest OSDs that fit, each holding 1/k rounded up.
    ClusterState cluster = withOsds("r1", small(OsdUsageType.RANDOM), "r2", small(OsdUsageType.RANDOM), "r3",
        small(OsdUsageType.RANDOM), "r4", small(OsdUsageType.RANDOM));
    long osdCapacityBytes = small(OsdUsageType.RANDOM).capacityBytes();
    Reservation reservation = Reservation.random(2 * osdCapacityBytes + 500, 40);
    ClusterState state = admitted(scheduler, cluster, "big", reservation);
    Placement placement = state.placement("big").orElseThrow();
    assertThat(placement.stripeWidth()).isEqualTo(3);
    assertThat(placement.osdUuids()).doesNotHaveDuplicates();
    for (String uuid : placement.osdUuids()) {
      assertThat(state.osd(uuid).orElseThrow().committed()).isEqualTo(reservation.demand().ceilDivide(3));
    }
    Clusters.assertConsistentAndNotOverCommitted(state);
    ReservationScheduler narrow = new ReservationScheduler(new SchedulerPolicy(PlacementRanking.ALIGNED_BEST_FIT, 2));
    Rejection rejection = rejected(narrow, cluster, "big", reservation);
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).contains(Dimension.CAPACITY);
    assertThat(rejection.shortfalls().get(0).largestAdmissible()).isEqualTo(2 * osdCapacityBytes);
  }

  @Test
  void rejectionSaysWhichDimensionIsShortByHowMuchAndWhatFits() {
    // Proves the rejection's per-dimension maxima and scaled-down reservation are exact: they fit, one more does not.
    ClusterState cluster = withOsds("a", small(OsdUsageType.SEQUENTIAL), "b", small(OsdUsageType.SEQUENTIAL));
    long perOsdThroughput = small(OsdUsageType.SEQUENTIAL).limits(1).throughputBytesPerSecond();
    Reservation tooFast = Reservation.sequential(300, 2 * perOsdThroughput + 50);
    Rejection rejection = rejected(scheduler, cluster, "v", tooFast);
    Shortfall throughput = rejection.shortfalls().stream().filter(s -> s.dimension() == Dimension.THROUGHPUT)
        .findFirst().orElseThrow();
    assertThat(throughput.largestAdmissible()).isEqualTo(2 * perOsdThroughput);
    assertThat(throughput.shortBy()).isEqualTo(50);
    assertThat(rejection.message()).contains("throughput short by 50B/s");
    admitted(scheduler, cluster, "v", Reservation.sequential(300, throughput.largestAdmissible()));
    rejected(scheduler, cluster, "v", Reservation.sequential(300, throughput.largestAdmissible() + 1));
    Reservation largest = rejection.largestAdmissible().orElseThrow();
    assertThat(largest.type()).isEqualTo(ReservationType.SEQUENTIAL);
    assertThat(largest.throughputBytesPerSecond()).isLessThan(tooFast.throughputBytesPerSecond());
    admitted(scheduler, cluster, "v", largest);
    rejected(scheduler, cluster, "v", Reservation.sequential(largest.capacityBytes() + 2,
        largest.throughputBytesPerSecond() + 2));
  }

  @Test
  void freeResourcesAreExactForEveryType() {
    // Proves each reported maximum is admitted and one unit more is refused, on a partly used mixed cluster.
    ClusterState state = withOsds("b1", small(OsdUsageType.BEST_EFFORT), "r1", small(OsdUsageType.RANDOM), "r2",
        Clusters.large(OsdUsageType.RANDOM), "s1", small(OsdUsageType.SEQUENTIAL), "s2", small(OsdUsageType.SEQUENTIAL));
    state = admitted(scheduler, state, "s", Reservation.sequential(700, 30));
    state = admitted(scheduler, state, "r", Reservation.random(1500, 60));
    state = admitted(scheduler, state, "c", Reservation.cold(300));
    FreeResources free = scheduler.freeResources(state);
    for (FreeResources.Headroom headroom : free.headrooms()) {
      for (Dimension dimension : headroom.type().dimensions()) {
        Reservation largest = headroom.largestIn(dimension).orElseThrow();
        admitted(scheduler, state, "probe", largest);
        rejected(scheduler, state, "probe", Reservation.of(headroom.type(),
            dimension.with(largest.demand(), dimension.of(largest.demand()) + 1)));
      }
    }
  }

  @Test
  void alignedBestFitDiffersFromFirstFit() {
    // Proves the ranking is not first fit in disguise: it prefers the tighter OSD although a lower uuid fits.
    ClusterState cluster = ClusterState.rebuild(
        List.of(new Osd("a", small(OsdUsageType.RANDOM)), new Osd("b", small(OsdUsageType.RANDOM))),
        List.of(new Placement("existing", Reservation.random(600, 30), List.of("b"))));
    Reservation reservation = Reservation.random(300, 10);
    ReservationScheduler firstFit = new ReservationScheduler(new SchedulerPolicy(PlacementRanking.FIRST_FIT, 32));
    assertThat(admitted(firstFit, cluster, "new", reservation).placement("new").orElseThrow().osdUuids())
        .containsExactly("a");
    assertThat(admitted(scheduler, cluster, "new", reservation).placement("new").orElseThrow().osdUuids())
        .containsExactly("b");
  }

  @Test
  void aVolumeGoesToTheOsdWhoseFreeShapeMatchesIt() {
    // Proves the angle term decides: a capacity-heavy volume skips the tighter OSD whose free space is IOPS-heavy.
    OsdProfile profile = new OsdProfile(OsdUsageType.RANDOM, DeviceClass.SSD, 1000, ThroughputCurve.flat(100), 100);
    ClusterState cluster = ClusterState.rebuild(List.of(new Osd("a", profile), new Osd("b", profile)),
        List.of(new Placement("on-a", Reservation.random(900, 90), List.of("a")),
            new Placement("on-b", Reservation.random(700, 90), List.of("b"))));
    Reservation capacityHeavy = Reservation.random(50, 1);
    ResourceVector share = capacityHeavy.demand();
    ResourceVector roomOnA = profile.limits(0).minus(cluster.osd("a").orElseThrow().committed());
    ResourceVector roomOnB = profile.limits(0).minus(cluster.osd("b").orElseThrow().committed());
    assertThat(squaredResidual(roomOnA, share, profile)).as("plain best fit would pick a")
        .isLessThan(squaredResidual(roomOnB, share, profile));
    assertThat(admitted(scheduler, cluster, "v", capacityHeavy).placement("v").orElseThrow().osdUuids())
        .containsExactly("b");
  }

  private static double squaredResidual(ResourceVector room, ResourceVector share, OsdProfile reference) {
    double capacity = (double) (room.capacityBytes() - share.capacityBytes()) / reference.capacityBytes();
    double iops = (double) (room.iops() - share.iops()) / reference.randomIops();
    return capacity * capacity + iops * iops;
  }

  @Test
  void coldVolumesFillStrandedCapacityBeforeBestEffortOsds() {
    // Proves a cold volume takes capacity on a typed OSD whose performance is used up, sparing best-effort space.
    ClusterState cluster = withOsds("a-best-effort", small(OsdUsageType.BEST_EFFORT), "b-sequential",
        small(OsdUsageType.SEQUENTIAL));
    long fullThroughput = small(OsdUsageType.SEQUENTIAL).limits(1).throughputBytesPerSecond();
    ClusterState state = admitted(scheduler, cluster, "busy", Reservation.sequential(100, fullThroughput));
    assertThat(admitted(scheduler, state, "cold", Reservation.cold(300)).placement("cold").orElseThrow().osdUuids())
        .containsExactly("b-sequential");
  }

  @Test
  void admissionLeavesTheInputStateUntouchedAndIsDeterministic() {
    // Proves admit has no hidden mutation and gives equal results for equal inputs built in different orders.
    ClusterState forward = withOsds("a", small(OsdUsageType.RANDOM), "b", small(OsdUsageType.RANDOM), "c",
        small(OsdUsageType.RANDOM));
    ClusterState backward = withOsds("c", small(OsdUsageType.RANDOM), "b", small(OsdUsageType.RANDOM), "a",
        small(OsdUsageType.RANDOM));
    assertThat(forward).isEqualTo(backward).hasSameHashCodeAs(backward);
    byte[] before = ClusterStateCodec.encode(forward);
    Admission first = scheduler.admit(forward, "v", Reservation.random(1800, 20));
    Admission second = scheduler.admit(backward, "v", Reservation.random(1800, 20));
    assertThat(first).isEqualTo(second);
    assertThat(ClusterStateCodec.encode(forward)).isEqualTo(before);
    assertThat(forward.volumeCount()).isZero();
  }

  @Test
  void releaseRestoresTheExactPriorState() {
    // Proves releasing a just-admitted striped volume gives back a state equal to the one before it.
    ClusterState before = withOsds("a", small(OsdUsageType.SEQUENTIAL), "b", small(OsdUsageType.SEQUENTIAL));
    before = admitted(scheduler, before, "x", Reservation.sequential(333, 17));
    ClusterState after = admitted(scheduler, before, "y", Reservation.sequential(1200, 60));
    assertThat(after.placement("y").orElseThrow().stripeWidth()).isEqualTo(2);
    assertThat(scheduler.release(after, "y")).isEqualTo(before);
    assertThat(scheduler.release(before, "unknown")).isSameAs(before);
  }

  @Test
  void removingAnOsdReportsAndReleasesItsVolumes() {
    // Proves OSD removal never fails on an unused OSD and releases every volume with a stripe on a used one.
    ClusterState cluster = withOsds("r1", small(OsdUsageType.RANDOM), "r2", small(OsdUsageType.RANDOM), "r3",
        small(OsdUsageType.RANDOM), "spare", small(OsdUsageType.BEST_EFFORT));
    OsdRemoval unused = cluster.withOsdRemoved("spare");
    assertThat(unused.releasedPlacements()).isEmpty();
    assertThat(unused.state().osd("spare")).isEmpty();
    assertThat(cluster.withOsdRemoved("never-registered").state()).isSameAs(cluster);
    ClusterState state = admitted(scheduler, cluster, "wide", Reservation.random(2500, 30));
    state = admitted(scheduler, state, "narrow", Reservation.random(10, 1));
    String stripeOsd = state.placement("wide").orElseThrow().osdUuids().get(1);
    OsdRemoval removal = state.withOsdRemoved(stripeOsd);
    assertThat(removal.releasedPlacements()).extracting(Placement::volumeId).contains("wide");
    assertThat(removal.state().placement("wide")).isEmpty();
    assertThat(removal.state().osd(stripeOsd)).isEmpty();
    Clusters.assertConsistentAndNotOverCommitted(removal.state());
  }

  @Test
  void profileUpdatesThatWouldOverCommitAreRefused() {
    // Proves an OSD update is applied when placements still fit and refused, naming the dimension, otherwise.
    ClusterState state = admitted(scheduler, withOsds("a", small(OsdUsageType.SEQUENTIAL)), "v",
        Reservation.sequential(800, 50));
    OsdUpdate shrink = state.withOsdUpdated("a", new OsdProfile(OsdUsageType.SEQUENTIAL, DeviceClass.HDD, 500, small(OsdUsageType.SEQUENTIAL).sequentialThroughput(), 50));
    assertThat(shrink).isInstanceOf(OsdUpdate.Refused.class);
    assertThat(((OsdUpdate.Refused) shrink).reason()).contains("capacity");
    OsdUpdate retype = state.withOsdUpdated("a", small(OsdUsageType.RANDOM));
    assertThat(((OsdUpdate.Refused) retype).reason()).contains("SEQUENTIAL volume v");
    OsdUpdate grow = state.withOsdUpdated("a", Clusters.large(OsdUsageType.SEQUENTIAL));
    ClusterState grown = ((OsdUpdate.Applied) grow).state();
    assertThat(grown.osd("a").orElseThrow().profile()).isEqualTo(Clusters.large(OsdUsageType.SEQUENTIAL));
    Clusters.assertConsistentAndNotOverCommitted(grown);
  }

  @Test
  void aDuplicateVolumeIdIsRejectedNotDoubleBooked() {
    // Proves a second admission under an existing volume id is refused and leaves the booking single.
    ClusterState state = admitted(scheduler, withOsds("a", small(OsdUsageType.RANDOM)), "v", Reservation.random(10, 1));
    Rejection rejection = rejected(scheduler, state, "v", Reservation.random(10, 1));
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.DUPLICATE_VOLUME_ID);
    assertThat(rejection.message()).contains("exists already");
  }

  @Test
  void replicatedVolumeCarriesItsShareOnEveryCopysOsd() {
    // Three replicas of a random reservation on four random OSDs: three distinct OSDs, each committed to the whole
    // demand (width 1), the fourth untouched; replicaOsds splits them head first.
    ClusterState cluster = withOsds("a", small(OsdUsageType.RANDOM), "b", small(OsdUsageType.RANDOM),
        "c", small(OsdUsageType.RANDOM), "d", small(OsdUsageType.RANDOM));
    Admission admission = scheduler.admit(cluster, "r3", Reservation.random(100, 10), java.util.Set.of(), 3);
    assertThat(admission).isInstanceOf(Admission.Admitted.class);
    Placement placement = ((Admission.Admitted) admission).placement();
    assertThat(placement.replicas()).isEqualTo(3);
    assertThat(placement.stripeWidth()).isEqualTo(1);
    assertThat(placement.osdUuids()).hasSize(3).doesNotHaveDuplicates();
    ClusterState state = ((Admission.Admitted) admission).state();
    for (String uuid : placement.osdUuids()) {
      assertThat(state.osd(uuid).orElseThrow().committed().iops()).isEqualTo(10);
    }
    List<String> byReplica = new java.util.ArrayList<>();
    for (int replica = 0; replica < 3; replica++) {
      byReplica.addAll(placement.replicaOsds(replica));
    }
    assertThat(byReplica).containsExactlyElementsOf(placement.osdUuids());
    Clusters.assertConsistentAndNotOverCommitted(state);
    assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(state))).isEqualTo(state);
  }

  @Test
  void fewerMatchingOsdsThanReplicasIsRefusedNamingBoth() {
    ClusterState cluster = withOsds("a", small(OsdUsageType.RANDOM), "b", small(OsdUsageType.RANDOM),
        "s", small(OsdUsageType.SEQUENTIAL));
    Admission admission = scheduler.admit(cluster, "r3", Reservation.random(100, 10), java.util.Set.of(), 3);
    assertThat(admission).isInstanceOf(Admission.Rejected.class);
    Rejection rejection = ((Admission.Rejected) admission).rejection();
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.TOO_FEW_OSDS_FOR_REPLICAS);
    assertThat(rejection.message()).contains("3 replicas need 3 distinct OSDs but only 2 available OSDs accept");
  }
}
