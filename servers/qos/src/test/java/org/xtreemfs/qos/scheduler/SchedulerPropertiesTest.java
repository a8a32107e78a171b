package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.SeededCases;
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

  @Test
  void noOsdDimensionIsEverOverCommittedAndSavedStateRebuildsExactly() {
    // Proves every reachable state respects all OSD limits and equals its own saved-and-rebuilt form.
    int[] stripedThree = {0};
    int[] fourVolumes = {0};
    int ran = checkHistories(0x5C4E_D001_0000L, 40_000, (scheduler, history, random) -> {
      ClusterState state = ClusterState.empty();
      for (Operation operation : history) {
        state = operation.apply(scheduler, state);
        Clusters.assertConsistentAndNotOverCommitted(state);
      }
      assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(state))).isEqualTo(state);
      List<Placement> reversed = new ArrayList<>(state.placements());
      Collections.reverse(reversed);
      assertThat(ClusterState.rebuild(state.osdDescriptors(), reversed)).isEqualTo(state);
      int widestStripe = state.placements().stream().mapToInt(Placement::stripeWidth).max().orElse(0);
      stripedThree[0] += widestStripe >= 3 ? 1 : 0;
      fourVolumes[0] += state.volumeCount() >= 4 ? 1 : 0;
    });
    if (ran == 40_000) {
      // Coverage: histories striping over 3+ OSDs and holding 4+ volumes must not be rare.
      assertThat(100.0 * stripedThree[0] / ran).as("%% of histories with a stripe of 3+ OSDs").isGreaterThan(0.3);
      assertThat(100.0 * fourVolumes[0] / ran).as("%% of histories ending with 4+ volumes").isGreaterThan(20.0);
    }
  }

  @Test
  void removalRestoresTheExactPriorState() {
    // Proves releasing a volume returns exactly the state without it, however that state was reached.
    checkHistories(0x5C4E_D002_0000L, 40_000, (scheduler, history, random) -> {
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
    });
  }

  @Test
  void reportedMaximaAreExactlyAdmissible() {
    // Proves free resources and rejection figures are tight: the reported maximum fits and one unit more does not.
    checkHistories(0x5C4E_D003_0000L, 20_000, (scheduler, history, random) -> {
      ClusterState state = ClusterState.empty();
      for (Operation operation : history) {
        state = operation.apply(scheduler, state);
      }
      checkMaximaAreTight(scheduler, state, reservation(random));
    });
  }

  /** One property check over a scheduler with a random policy and a random history (and the rest of the draws). */
  private interface HistoryCheck {
    void check(ReservationScheduler scheduler, List<Operation> history, SplittableRandom random);
  }

  private static int checkHistories(long baseSeed, int count, HistoryCheck check) {
    return SeededCases.check(baseSeed, count,
        random -> check.check(new ReservationScheduler(policy(random)), history(random), random));
  }

  private static void checkMaximaAreTight(ReservationScheduler scheduler, ClusterState state, Reservation probe) {
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
      // The offer exists exactly when some reservation of the type fits; it lies within the request, is
      // admitted, and is maximal: no dimension of it can grow by one unit towards the request.
      boolean smallestFits = scheduler.admit(state, "probe", Reservation.smallest(probe.type()))
          instanceof Admission.Admitted;
      assertThat(rejection.largestAdmissible().isPresent()).as("offer for %s", probe).isEqualTo(smallestFits);
      if (rejection.largestAdmissible().isPresent()) {
        Reservation offer = rejection.largestAdmissible().get();
        assertThat(offer.demand().fitsWithin(probe.demand())).as("offer %s within %s", offer, probe).isTrue();
        assertAdmitted(scheduler, state, offer, true);
        for (Dimension dimension : probe.type().dimensions()) {
          long amount = dimension.of(offer.demand());
          if (amount < dimension.of(probe.demand())) {
            assertAdmitted(scheduler, state, Reservation.of(probe.type(), dimension.with(offer.demand(), amount + 1)),
                false);
          }
        }
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

  private static SchedulerPolicy policy(SplittableRandom random) {
    return new SchedulerPolicy(SeededCases.oneOf(random, PlacementRanking.values()), SeededCases.between(random, 1, 6));
  }

  /** 2..8 OSD additions, then 1..24 admissions, releases, OSD additions, removals and updates (10:3:2:1:1). */
  private static List<Operation> history(SplittableRandom random) {
    List<Operation> history = new ArrayList<>(SeededCases.listOf(random, 2, OSD_UUID_COUNT,
        osds -> new Operation.AddOsd(osdUuid(osds), profile(osds))));
    history.addAll(SeededCases.listOf(random, 1, OPERATIONS_MAX, SchedulerPropertiesTest::operation));
    return history;
  }

  private static Operation operation(SplittableRandom random) {
    int weight = random.nextInt(10 + 3 + 2 + 1 + 1);
    if (weight < 10) {
      return new Operation.Admit(volumeId(random), reservation(random));
    }
    if (weight < 13) {
      return new Operation.Release(volumeId(random));
    }
    if (weight < 15) {
      return new Operation.AddOsd(osdUuid(random), profile(random));
    }
    return weight < 16 ? new Operation.RemoveOsd(osdUuid(random))
        : new Operation.UpdateOsd(osdUuid(random), profile(random));
  }

  private static String volumeId(SplittableRandom random) {
    return "v" + SeededCases.between(random, 0, VOLUME_ID_COUNT - 1);
  }

  private static String osdUuid(SplittableRandom random) {
    return "osd" + SeededCases.between(random, 0, OSD_UUID_COUNT - 1);
  }

  private static Reservation reservation(SplittableRandom random) {
    long capacity = SeededCases.between(random, 1L, 2500L);
    return switch (SeededCases.oneOf(random, ReservationType.values())) {
      case SEQUENTIAL -> Reservation.sequential(capacity, SeededCases.between(random, 1L, 300L));
      case RANDOM -> Reservation.random(capacity, SeededCases.between(random, 1L, 250L));
      case COLD -> Reservation.cold(capacity);
      case BEST_EFFORT -> Reservation.bestEffort(capacity);
    };
  }

  private static OsdProfile profile(SplittableRandom random) {
    OsdUsageType usage = SeededCases.oneOf(random, OsdUsageType.values());
    long capacity = SeededCases.between(random, 200L, 3000L);
    long[] points = SeededCases.listOf(random, 1, 5, point -> SeededCases.between(point, 20L, 200L)).stream()
        .mapToLong(Long::longValue).toArray();
    int floorDivisor = SeededCases.between(random, 1, 4);
    long iops = SeededCases.between(random, 10L, 200L);
    return new OsdProfile(usage, DeviceClass.HDD, capacity,
        new ThroughputCurve(points, Arrays.stream(points).min().orElseThrow() / floorDivisor), iops);
  }
}
