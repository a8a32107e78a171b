package org.xtreemfs.qos.model;

/**
 * An amount of the three resources the scheduler accounts: capacity, sequential throughput and random
 * 4 KiB IOPS. Used for reservation demands, per-OSD shares, committed totals and limits.
 * Invariant: every component is non-negative; arithmetic is exact or throws.
 */
public record ResourceVector(long capacityBytes, long throughputBytesPerSecond, long iops) {
  public static final ResourceVector ZERO = new ResourceVector(0, 0, 0);

  public ResourceVector {
    if (capacityBytes < 0 || throughputBytesPerSecond < 0 || iops < 0) {
      throw new IllegalArgumentException("resource amounts must be non-negative: " + capacityBytes + " B, "
          + throughputBytesPerSecond + " B/s, " + iops + " IOPS");
    }
  }

  public ResourceVector plus(ResourceVector other) {
    return new ResourceVector(Math.addExact(capacityBytes, other.capacityBytes),
        Math.addExact(throughputBytesPerSecond, other.throughputBytesPerSecond), Math.addExact(iops, other.iops));
  }

  /** Precondition: {@code other} fits within this vector in every dimension. */
  public ResourceVector minus(ResourceVector other) {
    return new ResourceVector(capacityBytes - other.capacityBytes,
        throughputBytesPerSecond - other.throughputBytesPerSecond, iops - other.iops);
  }

  /**
   * The equal per-stripe share of this demand over {@code stripeWidth} OSDs, rounded up in every dimension so
   * that the shares together never carry less than the demand.
   */
  public ResourceVector ceilDivide(int stripeWidth) {
    if (stripeWidth < 1) {
      throw new IllegalArgumentException("stripe width must be at least 1, got " + stripeWidth);
    }
    return new ResourceVector(ceilDivide(capacityBytes, stripeWidth),
        ceilDivide(throughputBytesPerSecond, stripeWidth), ceilDivide(iops, stripeWidth));
  }

  /** True when every component of this vector is at most the matching component of {@code limit}. */
  public boolean fitsWithin(ResourceVector limit) {
    return capacityBytes <= limit.capacityBytes && throughputBytesPerSecond <= limit.throughputBytesPerSecond
        && iops <= limit.iops;
  }

  private static long ceilDivide(long amount, int divisor) {
    return amount / divisor + (amount % divisor == 0 ? 0 : 1);
  }

  @Override
  public String toString() {
    return Units.formatBytes(capacityBytes) + "/" + Units.formatBytesPerSecond(throughputBytesPerSecond) + "/"
        + Units.formatIops(iops);
  }
}
