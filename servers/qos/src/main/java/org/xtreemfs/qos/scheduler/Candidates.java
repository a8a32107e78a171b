package org.xtreemfs.qos.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * The OSDs that accept one reservation type, in uuid order, with the headroom one more volume of that type
 * would have on each (throughput taken at the stream count the volume would create). Computed once per
 * decision so the placement loops touch only arrays.
 */
final class Candidates {
  private static final Dimension[] DIMENSIONS = Dimension.values();

  private final OsdState[] osds;
  private final long[][] headroomByDimension;
  private final long[] maxHeadroomByDimension;
  private final double[] inverseReferenceByDimension;
  /** Per dimension and candidate: whether the dimension is one the OSD's usage type serves. */
  private final boolean[][] servedByDimension;
  /** Per dimension, candidate indices by headroom, largest first; built on first use (rejections only). */
  private final int[][] orderByHeadroomDescending = new int[DIMENSIONS.length][];

  private Candidates(OsdState[] osds, long[][] headroomByDimension, long[] maxHeadroomByDimension,
      double[] inverseReferenceByDimension) {
    this.osds = osds;
    this.headroomByDimension = headroomByDimension;
    this.maxHeadroomByDimension = maxHeadroomByDimension;
    this.inverseReferenceByDimension = inverseReferenceByDimension;
    this.servedByDimension = new boolean[DIMENSIONS.length][osds.length];
    for (int index = 0; index < osds.length; index++) {
      for (Dimension dimension : osds[index].profile().usageType().dimensions()) {
        servedByDimension[dimension.ordinal()][index] = true;
      }
    }
  }

  static Candidates of(ClusterState state, ReservationType type) {
    return of(state, type, uuid -> true);
  }

  /** The candidates among the OSDs {@code usable} admits (e.g. the live ones, or one placement's). */
  static Candidates of(ClusterState state, ReservationType type, Predicate<String> usable) {
    List<OsdState> matching = new ArrayList<>();
    for (OsdState osd : state.osdArray()) {
      if (osd.profile().usageType().accepts(type) && usable.test(osd.uuid())) {
        matching.add(osd);
      }
    }
    OsdState[] osds = matching.toArray(new OsdState[0]);
    long[][] headroom = new long[DIMENSIONS.length][osds.length];
    long[] maxHeadroom = new long[DIMENSIONS.length];
    long[] reference = new long[DIMENSIONS.length];
    for (int index = 0; index < osds.length; index++) {
      OsdProfile profile = osds[index].profile();
      ResourceVector limitsAtOneStream = profile.limits(1);
      for (Dimension dimension : DIMENSIONS) {
        int axis = dimension.ordinal();
        headroom[axis][index] = osds[index].headroom(dimension, type.addsSequentialStream());
        maxHeadroom[axis] = Math.max(maxHeadroom[axis], headroom[axis][index]);
        reference[axis] = Math.max(reference[axis], dimension.of(limitsAtOneStream));
      }
    }
    double[] inverseReference = new double[DIMENSIONS.length];
    for (int axis = 0; axis < DIMENSIONS.length; axis++) {
      inverseReference[axis] = reference[axis] == 0 ? 0 : 1.0 / reference[axis];
    }
    return new Candidates(osds, headroom, maxHeadroom, inverseReference);
  }

  int count() {
    return osds.length;
  }

  OsdState osd(int index) {
    return osds[index];
  }

  long headroom(Dimension dimension, int index) {
    return headroomByDimension[dimension.ordinal()][index];
  }

  long maxHeadroom(Dimension dimension) {
    return maxHeadroomByDimension[dimension.ordinal()];
  }

  /** 1 / the largest one-stream limit in this dimension among the candidates, or 0 when that is 0. */
  double inverseReference(int axis) {
    return inverseReferenceByDimension[axis];
  }

  long headroom(int axis, int index) {
    return headroomByDimension[axis][index];
  }

  boolean serves(int axis, int index) {
    return servedByDimension[axis][index];
  }

  boolean isBestEffort(int index) {
    return osds[index].profile().usageType() == OsdUsageType.BEST_EFFORT;
  }

  /** Candidate indices ordered by headroom in {@code dimension}, largest first, ties by uuid. */
  int[] orderByHeadroomDescending(Dimension dimension) {
    int axis = dimension.ordinal();
    if (orderByHeadroomDescending[axis] == null) {
      long[] headroom = headroomByDimension[axis];
      Integer[] order = new Integer[osds.length];
      for (int index = 0; index < order.length; index++) {
        order[index] = index;
      }
      Arrays.sort(order, (left, right) -> headroom[left] != headroom[right]
          ? Long.compare(headroom[right], headroom[left]) : Integer.compare(left, right));
      orderByHeadroomDescending[axis] = Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    }
    return orderByHeadroomDescending[axis];
  }

  boolean fits(int index, ResourceVector share) {
    return share.capacityBytes() <= headroomByDimension[0][index]
        && share.throughputBytesPerSecond() <= headroomByDimension[1][index]
        && share.iops() <= headroomByDimension[2][index];
  }
}
