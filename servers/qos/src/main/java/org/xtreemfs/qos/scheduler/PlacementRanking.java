package org.xtreemfs.qos.scheduler;

import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * Orders the OSDs a volume (or stripe) fits on; the lowest score wins and equal scores fall back to uuid
 * order, so placement is deterministic.
 */
public enum PlacementRanking {
  /**
   * Shape first, tightness second. Over the dimensions the OSD serves, each normalised by the largest such OSD
   * among the candidates, the score is (1 - cos θ) + {@value #TIGHTNESS_WEIGHT} * |h - s|², where θ is the
   * angle between the volume's share s and the OSD's free headroom h. A small angle puts a capacity-heavy
   * volume where capacity is free but performance is used, and a performance-heavy one the other way round,
   * so no dimension is stranded; HDD- and SSD-shaped volumes thereby find HDD and SSD OSDs without being told.
   * The residual term then prefers the tighter of similar fits, so partly used OSDs fill up and large empty
   * ones stay open for large reservations. A best-effort OSD scores as if it also had a fully free
   * performance dimension: a cold volume (capacity only) thus prefers capacity stranded on typed OSDs whose
   * performance is used up, and leaves best-effort capacity to best-effort volumes. The weight was chosen on
   * the scheduler benchmark (it trades a few acceptances for fewer OSDs in use; see servers/qos/README.md).
   */
  ALIGNED_BEST_FIT {
    @Override
    double score(Candidates candidates, int index, ResourceVector share) {
      double phantom = candidates.isBestEffort(index) ? 1 : 0;
      double dot = 0;
      double shareSquared = 0;
      double headroomSquared = phantom;
      double residualSquared = phantom;
      for (int axis = 0; axis < AXES; axis++) {
        if (candidates.serves(axis, index)) {
          double inverse = candidates.inverseReference(axis);
          double headroom = candidates.headroom(axis, index) * inverse;
          double part = DIMENSIONS[axis].of(share) * inverse;
          dot += headroom * part;
          shareSquared += part * part;
          headroomSquared += headroom * headroom;
          residualSquared += (headroom - part) * (headroom - part);
        }
      }
      double norms = Math.sqrt(shareSquared * headroomSquared);
      double cosine = norms == 0 ? 0 : dot / norms;
      return (1 - cosine) + TIGHTNESS_WEIGHT * residualSquared;
    }
  },
  /** Plain first fit in uuid order: the baseline the benchmark compares against. */
  FIRST_FIT {
    @Override
    double score(Candidates candidates, int index, ResourceVector share) {
      return 0;
    }
  };

  /** Weight of the squared residual against the angle term of {@link #ALIGNED_BEST_FIT}. */
  public static final double TIGHTNESS_WEIGHT = 0.3;
  private static final Dimension[] DIMENSIONS = Dimension.values();
  private static final int AXES = DIMENSIONS.length;

  /** Precondition: {@code share} fits on candidate {@code index}. Lower is better. */
  abstract double score(Candidates candidates, int index, ResourceVector share);
}
