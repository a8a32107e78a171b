package org.xtreemfs.bench.qos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.scheduler.Osd;

/**
 * A seeded placement workload: a mixed cluster of built-in HDD and SSD profiles of three sizes, and a stream
 * of reservations whose total demand grows evenly until it reaches a chosen share of the cluster's capacity.
 *
 * <p>OSD mix: 35 % sequential HDD, 10 % sequential SSD, 10 % random HDD, 20 % random SSD, 25 % best-effort
 * HDD, each at half, once or twice the built-in capacity. Reservation mix: 40 % sequential, 30 % random,
 * 15 % cold, 15 % best-effort. A typed reservation is aimed at one OSD group of its type (usage type and device
 * class), chosen in proportion to the groups' capacity, because an HDD and an SSD differ in performance per
 * byte by one to two orders of magnitude and operators buy devices to match their tenants; the scheduler is
 * not told the group. Capacity and performance are drawn independently and log-uniformly over a factor of 30,
 * and 1 % of reservations are 8 times larger in both (usually more than one OSD, so they are striped). Sizes
 * are scaled so that at the end every group is offered {@code finalDemandShare} of its performance and 85 %
 * of that share of its capacity, and cold volumes the remaining 15 % of the capacity of all OSDs.
 */
record PlacementWorkload(List<Osd> osds, List<Request> requests, double[] offeredDemandShareAfter) {

  record Request(String volumeId, Reservation reservation) {}

  private static final double[] OSD_KIND_SHARES = {0.35, 0.10, 0.10, 0.20, 0.25};
  private static final double[] RESERVATION_TYPE_SHARES = {0.40, 0.30, 0.15, 0.15};
  private static final long[] CAPACITY_HALVES = {1, 2, 4};
  private static final double SIZE_RANGE_FACTOR = 30;
  private static final double LARGE_SHARE = 0.01;
  private static final double LARGE_FACTOR = 8;
  private static final double COLD_CAPACITY_SHARE = 0.15;
  private static final int COLD_GROUP = -1;

  static PlacementWorkload generate(int osdCount, int reservationCount, long seed, double finalDemandShare) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Osd> osds = new ArrayList<>(osdCount);
    for (int index = 0; index < osdCount; index++) {
      osds.add(new Osd(String.format("osd-%05d", index), randomProfile(random)));
    }
    ClusterCapacity rawCapacity = ClusterCapacity.of(osds, new int[ClusterCapacity.GROUP_COUNT]);
    ReservationType[] types = new ReservationType[reservationCount];
    int[] groups = new int[reservationCount];
    double[] capacityWeights = new double[reservationCount];
    double[] performanceWeights = new double[reservationCount];
    int[] sequentialVolumesByGroup = new int[ClusterCapacity.GROUP_COUNT];
    for (int index = 0; index < reservationCount; index++) {
      types[index] = ReservationType.values()[pick(random, RESERVATION_TYPE_SHARES)];
      groups[index] = types[index] == ReservationType.COLD ? COLD_GROUP : pickGroup(random, rawCapacity, types[index]);
      if (types[index] == ReservationType.SEQUENTIAL) {
        sequentialVolumesByGroup[groups[index]]++;
      }
      double largeFactor = random.nextDouble() < LARGE_SHARE ? LARGE_FACTOR : 1;
      capacityWeights[index] = logUniform(random) * largeFactor;
      performanceWeights[index] = logUniform(random) * largeFactor;
    }
    ClusterCapacity capacity = ClusterCapacity.of(osds, sequentialVolumesByGroup);
    double[] capacityWeightByGroup = new double[ClusterCapacity.GROUP_COUNT];
    double[] performanceWeightByGroup = new double[ClusterCapacity.GROUP_COUNT];
    double coldCapacityWeight = 0;
    for (int index = 0; index < reservationCount; index++) {
      if (groups[index] == COLD_GROUP) {
        coldCapacityWeight += capacityWeights[index];
      } else {
        capacityWeightByGroup[groups[index]] += capacityWeights[index];
        performanceWeightByGroup[groups[index]] += performanceWeights[index];
      }
    }
    List<Request> requests = new ArrayList<>(reservationCount);
    DemandMeter meter = new DemandMeter(capacity);
    double[] offeredShareAfter = new double[reservationCount];
    for (int index = 0; index < reservationCount; index++) {
      int group = groups[index];
      double capacityTarget = group == COLD_GROUP
          ? COLD_CAPACITY_SHARE * capacity.totalCapacityBytes() * capacityWeights[index] / coldCapacityWeight
          : (1 - COLD_CAPACITY_SHARE) * capacity.capacityBytesByGroup()[group] * capacityWeights[index]
              / capacityWeightByGroup[group];
      double performanceTarget = group == COLD_GROUP ? 0
          : capacity.performanceByGroup()[group] * performanceWeights[index] / performanceWeightByGroup[group];
      long capacityBytes = Math.max(1, Math.round(finalDemandShare * capacityTarget));
      long performance = Math.max(1, Math.round(finalDemandShare * performanceTarget));
      Reservation reservation = switch (types[index]) {
        case SEQUENTIAL -> Reservation.sequential(capacityBytes, performance);
        case RANDOM -> Reservation.random(capacityBytes, performance);
        case COLD -> Reservation.cold(capacityBytes);
        case BEST_EFFORT -> Reservation.bestEffort(capacityBytes);
      };
      requests.add(new Request(String.format("volume-%06d", index), reservation));
      offeredShareAfter[index] = meter.add(group, capacityBytes, reservation.throughputBytesPerSecond()
          + reservation.iops());
    }
    return new PlacementWorkload(osds, requests, offeredShareAfter);
  }

  private static OsdProfile randomProfile(SplittableRandom random) {
    OsdProfile builtIn = switch (pick(random, OSD_KIND_SHARES)) {
      case 0 -> OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL);
      case 1 -> OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL);
      case 2 -> OsdProfiles.hdd7200(OsdUsageType.RANDOM);
      case 3 -> OsdProfiles.sataSsd(OsdUsageType.RANDOM);
      default -> OsdProfiles.hdd7200(OsdUsageType.BEST_EFFORT);
    };
    long halves = CAPACITY_HALVES[random.nextInt(CAPACITY_HALVES.length)];
    return new OsdProfile(builtIn.usageType(), builtIn.deviceClass(), builtIn.capacityBytes() / 2 * halves,
        builtIn.sequentialThroughput(), builtIn.randomIops());
  }

  /** One group whose usage type serves {@code type}, chosen in proportion to the groups' capacity. */
  private static int pickGroup(SplittableRandom random, ClusterCapacity capacity, ReservationType type) {
    OsdUsageType usage = OsdUsageType.valueOf(type.name());
    double[] shares = new double[ClusterCapacity.GROUP_COUNT];
    double total = 0;
    for (int group = 0; group < shares.length; group++) {
      boolean serves = group / DeviceClass.values().length == usage.ordinal();
      shares[group] = serves ? capacity.capacityBytesByGroup()[group] : 0;
      total += shares[group];
    }
    if (total == 0) {
      return ClusterCapacity.group(usage, DeviceClass.HDD);
    }
    for (int group = 0; group < shares.length; group++) {
      shares[group] /= total;
    }
    return pick(random, shares);
  }

  private static int pick(SplittableRandom random, double[] shares) {
    double draw = random.nextDouble();
    int last = 0;
    for (int index = 0; index < shares.length; index++) {
      if (shares[index] > 0) {
        last = index;
        draw -= shares[index];
        if (draw < 0) {
          return index;
        }
      }
    }
    return last;
  }

  private static double logUniform(SplittableRandom random) {
    return Math.exp(random.nextDouble() * Math.log(SIZE_RANGE_FACTOR));
  }
}
