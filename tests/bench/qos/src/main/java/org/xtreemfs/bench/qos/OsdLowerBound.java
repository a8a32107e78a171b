package org.xtreemfs.bench.qos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.OsdState;
import org.xtreemfs.qos.scheduler.Placement;

/**
 * A lower bound on the number of OSDs any valid placement of a state's admitted volumes needs, for judging how
 * tightly a strategy packs. Per OSD group (sequential, random, best-effort) and dimension, it counts how many
 * of the group's largest OSDs it takes to reach the typed volumes' total demand, taking each OSD's peak
 * throughput (more than any stream count allows, which keeps the bound valid); the groups are disjoint, so the
 * group bounds add up. Cold volumes may go anywhere, so they enter only a second bound on the capacity of all
 * OSDs together; the larger of the two bounds is reported.
 */
final class OsdLowerBound {
  private OsdLowerBound() {}

  static int of(ClusterState state) {
    ResourceVector[] demandByUsage = new ResourceVector[OsdUsageType.values().length];
    Arrays.fill(demandByUsage, ResourceVector.ZERO);
    long totalCapacityBytes = 0;
    for (Placement placement : state.placements()) {
      ReservationType type = placement.reservation().type();
      totalCapacityBytes += placement.reservation().capacityBytes();
      if (type != ReservationType.COLD) {
        OsdUsageType usage = OsdUsageType.valueOf(type.name());
        demandByUsage[usage.ordinal()] = demandByUsage[usage.ordinal()].plus(placement.reservation().demand());
      }
    }
    int typedBound = 0;
    for (OsdUsageType usage : OsdUsageType.values()) {
      int groupBound = 0;
      for (Dimension dimension : Dimension.values()) {
        List<Long> offers = new ArrayList<>();
        for (OsdState osd : state.osds()) {
          if (osd.profile().usageType() == usage) {
            offers.add(peakOffer(osd.profile(), dimension));
          }
        }
        groupBound = Math.max(groupBound, osdsToReach(offers, dimension.of(demandByUsage[usage.ordinal()])));
      }
      typedBound += groupBound;
    }
    List<Long> capacities = new ArrayList<>();
    for (OsdState osd : state.osds()) {
      capacities.add(osd.profile().capacityBytes());
    }
    return Math.max(typedBound, osdsToReach(capacities, totalCapacityBytes));
  }

  private static long peakOffer(OsdProfile profile, Dimension dimension) {
    return switch (dimension) {
      case CAPACITY -> profile.capacityBytes();
      case THROUGHPUT -> profile.sequentialThroughput().peakBytesPerSecond();
      case IOPS -> profile.randomIops();
    };
  }

  private static int osdsToReach(List<Long> offers, long demand) {
    offers.sort(Comparator.reverseOrder());
    long reached = 0;
    int count = 0;
    for (long offer : offers) {
      if (reached >= demand) {
        break;
      }
      reached += offer;
      count++;
    }
    return count;
  }
}
