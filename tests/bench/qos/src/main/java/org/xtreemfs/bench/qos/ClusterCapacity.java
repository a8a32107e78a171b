package org.xtreemfs.bench.qos;

import java.util.List;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.scheduler.Osd;

/**
 * What a cluster offers, per OSD group (usage type and device class) and in total: the yardstick for "total
 * demand below 80 % of capacity". A group's performance is its random IOPS, or for sequential groups its
 * throughput with every OSD carrying the group's mean number of streams (throughput falls with streams, so
 * this figure is an estimate; capacity and IOPS are exact).
 */
record ClusterCapacity(double totalCapacityBytes, double[] capacityBytesByGroup, double[] performanceByGroup,
    int[] osdCountByGroup) {

  static final int GROUP_COUNT = OsdUsageType.values().length * DeviceClass.values().length;

  static int group(OsdUsageType usageType, DeviceClass deviceClass) {
    return usageType.ordinal() * DeviceClass.values().length + deviceClass.ordinal();
  }

  static int group(OsdProfile profile) {
    return group(profile.usageType(), profile.deviceClass());
  }

  /** @param sequentialVolumesByGroup how many sequential volumes are aimed at each group */
  static ClusterCapacity of(List<Osd> osds, int[] sequentialVolumesByGroup) {
    int[] osdCounts = new int[GROUP_COUNT];
    for (Osd osd : osds) {
      osdCounts[group(osd.profile())]++;
    }
    double total = 0;
    double[] capacity = new double[GROUP_COUNT];
    double[] performance = new double[GROUP_COUNT];
    for (Osd osd : osds) {
      OsdProfile profile = osd.profile();
      int group = group(profile);
      total += profile.capacityBytes();
      capacity[group] += profile.capacityBytes();
      if (profile.usageType() == OsdUsageType.SEQUENTIAL) {
        int streams = Math.max(1, (sequentialVolumesByGroup[group] + osdCounts[group] - 1) / osdCounts[group]);
        performance[group] += profile.sequentialThroughput().admissibleBytesPerSecond(streams);
      } else if (profile.usageType() == OsdUsageType.RANDOM) {
        performance[group] += profile.randomIops();
      }
    }
    return new ClusterCapacity(total, capacity, performance, osdCounts);
  }
}
