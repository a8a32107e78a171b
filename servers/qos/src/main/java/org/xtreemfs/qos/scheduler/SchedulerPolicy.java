package org.xtreemfs.qos.scheduler;

import java.util.Objects;

/**
 * How the scheduler chooses among valid placements. Not part of {@link ClusterState}: a placement, once
 * made, stays valid whatever policy later runs.
 *
 * @param ranking which of the OSDs that fit receive a new volume
 * @param stripeWidthMax the widest stripe a volume may get; bounds every placement loop
 */
public record SchedulerPolicy(PlacementRanking ranking, int stripeWidthMax) {
  public static final int STRIPE_WIDTH_MAX_DEFAULT = 32;
  public static final SchedulerPolicy DEFAULT = new SchedulerPolicy(PlacementRanking.ALIGNED_BEST_FIT,
      STRIPE_WIDTH_MAX_DEFAULT);

  public SchedulerPolicy {
    Objects.requireNonNull(ranking, "ranking");
    if (stripeWidthMax < 1) {
      throw new IllegalArgumentException("stripeWidthMax must be at least 1, got " + stripeWidthMax);
    }
  }
}
