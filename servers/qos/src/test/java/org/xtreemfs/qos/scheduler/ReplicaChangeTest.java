package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.xtreemfs.qos.scheduler.Clusters.small;
import static org.xtreemfs.qos.scheduler.Clusters.withOsds;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ResourceVector;

/** {@link ReservationScheduler#withReplicas} and {@link ReservationScheduler#moveReplica} of a replicated volume. */
class ReplicaChangeTest {
  private final ReservationScheduler scheduler = new ReservationScheduler();

  /** Random OSDs a..e (50 IOPS each) with volume "r" (10 IOPS) admitted with two replicas. */
  private static Admission.Admitted twoReplicas(ClusterState cluster) {
    Admission admission = new ReservationScheduler().admit(cluster, "r", Reservation.random(100, 10), Set.of(), 2);
    assertThat(admission).isInstanceOf(Admission.Admitted.class);
    return (Admission.Admitted) admission;
  }

  private static ClusterState randomOsds(String... uuids) {
    ClusterState state = ClusterState.empty();
    for (String uuid : uuids) {
      state = state.withOsdAdded(uuid, small(OsdUsageType.RANDOM));
    }
    return state;
  }

  private static long iops(ClusterState state, String osd) {
    return state.osd(osd).orElseThrow().committed().iops();
  }

  @Test
  void raisingAdmitsTheShareOnANewOsdAndKeepsTheExistingReplicas() {
    Admission.Admitted two = twoReplicas(randomOsds("a", "b", "c", "d"));
    List<String> before = two.placement().osdUuids();
    Admission raised = scheduler.withReplicas(two.state(), "r", 3, Set.of());
    assertThat(raised).isInstanceOf(Admission.Admitted.class);
    Placement placement = ((Admission.Admitted) raised).placement();
    ClusterState state = ((Admission.Admitted) raised).state();
    assertThat(placement.replicas()).isEqualTo(3);
    assertThat(placement.osdUuids()).hasSize(3).doesNotHaveDuplicates().startsWith(before.toArray(String[]::new));
    for (String osd : placement.osdUuids()) {
      assertThat(iops(state, osd)).as("the share on %s", osd).isEqualTo(10);
    }
    assertThat(placement.reservation()).isEqualTo(two.placement().reservation());
    Clusters.assertConsistentAndNotOverCommitted(state);
    assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(state))).isEqualTo(state);
  }

  @Test
  void loweringReleasesTheLastReplicasShares() {
    Admission.Admitted two = twoReplicas(randomOsds("a", "b", "c"));
    String tail = two.placement().replicaOsds(1).get(0);
    Admission lowered = scheduler.withReplicas(two.state(), "r", 1, Set.of());
    ClusterState state = ((Admission.Admitted) lowered).state();
    assertThat(((Admission.Admitted) lowered).placement().osdUuids()).containsExactlyElementsOf(
        two.placement().replicaOsds(0));
    assertThat(iops(state, tail)).isZero();
    Clusters.assertConsistentAndNotOverCommitted(state);
  }

  @Test
  void aNewReplicaAvoidsExcludedOsdsAndIsRefusedNamingTheShortDimensionWhenNoneHasRoom() {
    Admission.Admitted two = twoReplicas(randomOsds("a", "b", "c", "d"));
    Set<String> free = new java.util.TreeSet<>(Set.of("a", "b", "c", "d"));
    free.removeAll(two.placement().osdUuids());
    String avoided = free.iterator().next();
    Placement placement = ((Admission.Admitted) scheduler.withReplicas(two.state(), "r", 3, Set.of(avoided)))
        .placement();
    assertThat(placement.replicaOsds(2)).doesNotContain(avoided);
    // Fill both free OSDs with another random volume of 45 IOPS: 10 more fit on neither.
    ClusterState full = two.state();
    for (String osd : free) {
      full = full.withPlacement(new Placement("other-" + osd, Reservation.random(10, 45), List.of(osd)));
    }
    Admission refused = scheduler.withReplicas(full, "r", 3, Set.of());
    assertThat(refused).isInstanceOf(Admission.Rejected.class);
    Rejection rejection = ((Admission.Rejected) refused).rejection();
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.INSUFFICIENT_RESOURCES);
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).containsExactly(Dimension.IOPS);
    assertThat(rejection.message()).contains("iops short by 5").contains("largest admissible now");
    assertThat(rejection.largestAdmissible().orElseThrow().demand().iops()).isEqualTo(5);
  }

  @Test
  void tooFewMatchingOsdsForTheNewReplicaIsRefusedNamingTheCounts() {
    ClusterState cluster = withOsds("a", small(OsdUsageType.RANDOM), "b", small(OsdUsageType.RANDOM),
        "s", small(OsdUsageType.SEQUENTIAL));
    Admission refused = scheduler.withReplicas(twoReplicas(cluster).state(), "r", 3, Set.of());
    Rejection rejection = ((Admission.Rejected) refused).rejection();
    assertThat(rejection.reason()).isEqualTo(Rejection.Reason.TOO_FEW_OSDS_FOR_REPLICAS);
    assertThat(rejection.message()).contains("3 replicas need 3 distinct OSDs but only 2 available OSDs accept");
  }

  @Test
  void aMovedReplicaReleasesItsOsdsShareAndAdmitsItOnAnother() {
    Admission.Admitted two = twoReplicas(randomOsds("a", "b", "c"));
    String dead = two.placement().replicaOsds(1).get(0);
    String head = two.placement().replicaOsds(0).get(0);
    Admission moved = scheduler.moveReplica(two.state(), "r", 1, Set.of(dead));
    assertThat(moved).isInstanceOf(Admission.Admitted.class);
    Placement placement = ((Admission.Admitted) moved).placement();
    ClusterState state = ((Admission.Admitted) moved).state();
    assertThat(placement.replicaOsds(0)).containsExactly(head);
    assertThat(placement.replicaOsds(1)).doesNotContain(dead, head);
    assertThat(iops(state, dead)).as("the dead OSD's share is released").isZero();
    assertThat(iops(state, placement.replicaOsds(1).get(0))).isEqualTo(10);
    Clusters.assertConsistentAndNotOverCommitted(state);
    Admission nowhere = scheduler.moveReplica(state, "r", 1, Set.of("a", "b", "c"));
    assertThat(((Admission.Rejected) nowhere).rejection().reason())
        .isEqualTo(Rejection.Reason.TOO_FEW_OSDS_FOR_REPLICAS);
  }

  @Test
  void aSequentialReplicaIsCheckedAtTheStreamCountItAdds() {
    // On "c", volume "v1" holds 70 B/s; with the second stream a copy of "s" adds, "c" admits min(100, 110) = 100 B/s
    // in all, so 30 are left for a copy that needs 40: it does not fit there.
    ClusterState cluster = withOsds("a", small(OsdUsageType.SEQUENTIAL), "b", small(OsdUsageType.SEQUENTIAL),
        "c", small(OsdUsageType.SEQUENTIAL));
    cluster = cluster.withPlacement(new Placement("v1", Reservation.sequential(10, 70), List.of("c")));
    Admission admission = scheduler.admit(cluster, "s", Reservation.sequential(10, 40), Set.of(), 2);
    ClusterState state = ((Admission.Admitted) admission).state();
    assertThat(((Admission.Admitted) admission).placement().osdUuids()).containsExactlyInAnyOrder("a", "b");
    Rejection rejection = ((Admission.Rejected) scheduler.withReplicas(state, "s", 3, Set.of())).rejection();
    assertThat(rejection.shortfalls()).extracting(Shortfall::dimension).containsExactly(Dimension.THROUGHPUT);
    assertThat(state.osd("c").orElseThrow().committed()).isEqualTo(new ResourceVector(10, 70, 0));
  }

  @Test
  void aVolumeWithoutPlacementOrABadCountIsAnError() {
    ClusterState cluster = randomOsds("a");
    assertThatThrownBy(() -> scheduler.withReplicas(cluster, "none", 2, Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("none");
    ClusterState state = twoReplicas(randomOsds("a", "b")).state();
    assertThatThrownBy(() -> scheduler.withReplicas(state, "r", 0, Set.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> scheduler.moveReplica(state, "r", 2, Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no replica 2");
  }
}
