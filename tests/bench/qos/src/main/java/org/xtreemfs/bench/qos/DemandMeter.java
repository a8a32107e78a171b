package org.xtreemfs.bench.qos;

/**
 * The offered demand so far as a share of capacity: the largest of the ratios of all capacity and of each OSD
 * group's capacity and performance. A single full dimension makes the cluster full.
 */
final class DemandMeter {
  private final ClusterCapacity capacity;
  private final double[] capacityBytesByGroup = new double[ClusterCapacity.GROUP_COUNT];
  private final double[] performanceByGroup = new double[ClusterCapacity.GROUP_COUNT];
  private double totalCapacityBytes;

  DemandMeter(ClusterCapacity capacity) {
    this.capacity = capacity;
  }

  /**
   * Adds one offered reservation aimed at {@code group} (negative for a cold volume, which may go anywhere)
   * and returns the offered share afterwards.
   */
  double add(int group, long capacityBytes, long performance) {
    totalCapacityBytes += capacityBytes;
    if (group >= 0) {
      capacityBytesByGroup[group] += capacityBytes;
      performanceByGroup[group] += performance;
    }
    double share = totalCapacityBytes / capacity.totalCapacityBytes();
    for (int index = 0; index < ClusterCapacity.GROUP_COUNT; index++) {
      share = Math.max(share, ratio(capacityBytesByGroup[index], capacity.capacityBytesByGroup()[index]));
      share = Math.max(share, ratio(performanceByGroup[index], capacity.performanceByGroup()[index]));
    }
    return share;
  }

  private static double ratio(double offered, double offer) {
    return offered == 0 ? 0 : offered / offer;
  }
}
