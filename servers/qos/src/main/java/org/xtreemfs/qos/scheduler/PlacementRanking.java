package org.xtreemfs.qos.scheduler;

import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * Orders the OSDs a volume (or stripe) fits on; the lowest score wins and equal scores fall back to uuid
 * order, so placement is deterministic.
 */
public enum PlacementRanking {
  /**
   * Vector best fit: the squared length of the OSD's headroom left after placement, each dimension the OSD
   * serves normalised by the largest such OSD of the candidates. Tight fits win, so partly used OSDs fill up
   * and empty ones stay empty for later large reservations; and a cold volume, which leaves throughput or
   * IOPS untouched, lands where those are already used up and its capacity would otherwise be stranded.
   */
  VECTOR_BEST_FIT {
    @Override
    double score(Candidates candidates, int index, ResourceVector share) {
      double sum = 0;
      for (Dimension dimension : candidates.osd(index).profile().usageType().dimensions()) {
        double left = (double) (candidates.headroom(dimension, index) - dimension.of(share))
            * candidates.inverseReference(dimension);
        sum += left * left;
      }
      return sum;
    }
  },
  /** Plain first fit in uuid order: the baseline the benchmark compares against. */
  FIRST_FIT {
    @Override
    double score(Candidates candidates, int index, ResourceVector share) {
      return 0;
    }
  };

  /** Precondition: {@code share} fits on candidate {@code index}. Lower is better. */
  abstract double score(Candidates candidates, int index, ResourceVector share);
}
