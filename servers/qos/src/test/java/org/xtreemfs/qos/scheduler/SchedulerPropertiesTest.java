package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.ThroughputCurve;

/**
 * Random histories of admissions, releases and OSD changes on small clusters whose sizes make contention,
 * striping and rejection common. 100,000 histories in total across the three properties.
 */
class SchedulerPropertiesTest {
  private static final int VOLUME_ID_COUNT = 12;
  private static final int OSD_UUID_COUNT = 8;
  private static final int OPERATIONS_MAX = 24;

  @Property(tries = 40_000, shrinking = ShrinkingMode.BOUNDED)
  void noOsdDimensionIsEverOverCommittedAndSavedStateRebuildsExactly(@ForAll("policies") SchedulerPolicy policy,
      @ForAll("histories") List<Operation> history) {
    // Proves every reachable state respects all OSD limits and equals its own saved-and-rebuilt form.
    ReservationScheduler scheduler = new ReservationScheduler(policy);
    ClusterState state = ClusterState.empty();
    for (Operation operation : history) {
      state = operation.apply(scheduler, state);
      Clusters.assertConsistentAndNotOverCommitted(state);
    }
    assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(state))).isEqualTo(state);
    int widestStripe = state.placements().stream().mapToInt(Placement::stripeWidth).max().orElse(0);
    Statistics.label("widest stripe").collect(Math.min(widestStripe, 3));
    Statistics.label("volumes placed").collect(Math.min(state.volumeCount(), 4));
    Statistics.label("widest stripe").coverage(coverage -> coverage.check(3).percentage(share -> share > 0.3));
    Statistics.label("volumes placed").coverage(coverage -> coverage.check(4).percentage(share -> share > 20.0));
    List<Placement> reversed = new ArrayList<>(state.placements());
    Collections.reverse(reversed);
    assertThat(ClusterState.rebuild(state.osdDescriptors(), reversed)).isEqualTo(state);
  }

  @Property(tries = 40_000, shrinking = ShrinkingMode.BOUNDED)
  void removalRestoresTheExactPriorState(@ForAll("policies") SchedulerPolicy policy,
      @ForAll("histories") List<Operation> history) {
    // Proves releasing a volume returns exactly the state without it, however that state was reached.
    ReservationScheduler scheduler = new ReservationScheduler(policy);
    ClusterState state = ClusterState.empty();
    for (Operation operation : history) {
      ClusterState next = operation.apply(scheduler, state);
      if (operation instanceof Operation.Admit admit && next != state) {
        assertThat(scheduler.release(next, admit.volumeId())).isEqualTo(state);
      }
      if (operation instanceof Operation.Release release && state.placement(release.volumeId()).isPresent()) {
        List<Placement> remaining = new ArrayList<>(state.placements());
        remaining.removeIf(placement -> placement.volumeId().equals(release.volumeId()));
        assertThat(next).isEqualTo(ClusterState.rebuild(state.osdDescriptors(), remaining));
      }
      state = next;
    }
  }

  @Property(tries = 20_000, shrinking = ShrinkingMode.BOUNDED)
  void reportedMaximaAreExactlyAdmissible(@ForAll("policies") SchedulerPolicy policy,
      @ForAll("histories") List<Operation> history, @ForAll("reservations") Reservation probe) {
    // Proves free resources and rejection figures are tight: the reported maximum fits and one unit more does not.
    ReservationScheduler scheduler = new ReservationScheduler(policy);
    ClusterState state = ClusterState.empty();
    for (Operation operation : history) {
      state = operation.apply(scheduler, state);
    }
    FreeResources free = scheduler.freeResources(state);
    for (FreeResources.Headroom headroom : free.headrooms()) {
      for (Dimension dimension : headroom.type().dimensions()) {
        Reservation largest = headroom.largestIn(dimension).orElse(Reservation.smallest(headroom.type()));
        boolean anyFits = headroom.largestIn(dimension).isPresent();
        assertAdmitted(scheduler, state, largest, anyFits);
        long oneMore = dimension.of(largest.demand()) + (anyFits ? 1 : 0);
        assertAdmitted(scheduler, state, Reservation.of(headroom.type(), dimension.with(largest.demand(), oneMore)),
            false);
      }
    }
    if (scheduler.admit(state, "probe", probe) instanceof Admission.Rejected rejected) {
      Rejection rejection = rejected.rejection();
      if (rejection.largestAdmissible().isPresent()) {
        assertAdmitted(scheduler, state, rejection.largestAdmissible().get(), true);
      }
      assertThat(rejection.shortfalls()).isNotEmpty();
      for (Shortfall shortfall : rejection.shortfalls()) {
        ResourceVector demand = probe.demand();
        assertThat(shortfall.shortBy()).isPositive();
        if (shortfall.largestAdmissible() > 0) {
          assertAdmitted(scheduler, state,
              Reservation.of(probe.type(), shortfall.dimension().with(demand, shortfall.largestAdmissible())), true);
        }
        assertAdmitted(scheduler, state,
            Reservation.of(probe.type(), shortfall.dimension().with(demand, shortfall.largestAdmissible() + 1)), false);
      }
    }
  }

  private static void assertAdmitted(ReservationScheduler scheduler, ClusterState state, Reservation reservation,
      boolean expected) {
    assertThat(scheduler.admit(state, "probe", reservation) instanceof Admission.Admitted)
        .as("admission of %s", reservation).isEqualTo(expected);
  }

  @Provide
  Arbitrary<SchedulerPolicy> policies() {
    return Combinators.combine(Arbitraries.of(PlacementRanking.class), Arbitraries.integers().between(1, 6))
        .as(SchedulerPolicy::new);
  }

  @Provide
  Arbitrary<List<Operation>> histories() {
    Arbitrary<String> volumeIds = Arbitraries.integers().between(0, VOLUME_ID_COUNT - 1).map(index -> "v" + index);
    Arbitrary<String> osdUuids = Arbitraries.integers().between(0, OSD_UUID_COUNT - 1).map(index -> "osd" + index);
    Arbitrary<Operation> admit = Combinators.combine(volumeIds, reservations()).as(Operation.Admit::new);
    Arbitrary<Operation> release = volumeIds.map(Operation.Release::new);
    Arbitrary<Operation> add = Combinators.combine(osdUuids, profiles()).as(Operation.AddOsd::new);
    Arbitrary<Operation> remove = osdUuids.map(Operation.RemoveOsd::new);
    Arbitrary<Operation> update = Combinators.combine(osdUuids, profiles()).as(Operation.UpdateOsd::new);
    Arbitrary<List<Operation>> initialOsds = add.list().ofMinSize(2).ofMaxSize(OSD_UUID_COUNT);
    Arbitrary<List<Operation>> operations = Arbitraries.frequencyOf(Tuple.of(10, admit), Tuple.of(3, release),
        Tuple.of(2, add), Tuple.of(1, remove), Tuple.of(1, update)).list().ofMinSize(1).ofMaxSize(OPERATIONS_MAX);
    return Combinators.combine(initialOsds, operations).as((osds, steps) -> {
      List<Operation> history = new ArrayList<>(osds);
      history.addAll(steps);
      return history;
    });
  }

  @Provide
  Arbitrary<Reservation> reservations() {
    Arbitrary<Long> capacities = Arbitraries.longs().between(1, 2500);
    Arbitrary<Long> throughputs = Arbitraries.longs().between(1, 300);
    Arbitrary<Long> iops = Arbitraries.longs().between(1, 250);
    return Arbitraries.of(ReservationType.class).flatMap(type -> switch (type) {
      case SEQUENTIAL -> Combinators.combine(capacities, throughputs).as(Reservation::sequential);
      case RANDOM -> Combinators.combine(capacities, iops).as(Reservation::random);
      case COLD -> capacities.map(Reservation::cold);
      case BEST_EFFORT -> capacities.map(Reservation::bestEffort);
    });
  }

  private static Arbitrary<OsdProfile> profiles() {
    Arbitrary<long[]> curves = Arbitraries.longs().between(20, 200).array(long[].class).ofMinSize(1).ofMaxSize(5);
    return Combinators.combine(Arbitraries.of(OsdUsageType.class), Arbitraries.longs().between(200, 3000), curves,
        Arbitraries.integers().between(1, 4), Arbitraries.longs().between(10, 200))
        .as((usage, capacity, points, floorDivisor, iops) -> new OsdProfile(usage, DeviceClass.HDD, capacity,
            new ThroughputCurve(points, Arrays.stream(points).min().orElseThrow() / floorDivisor), iops));
  }
}
