package org.xtreemfs.qos.model;

import java.util.Arrays;

/**
 * Sequential throughput of one device as a function of the number of concurrent streams: the minimum of
 * read and write throughput measured at 1..N streams, in bytes per second.
 *
 * <p><b>Beyond N streams</b> the curve continues the decline of its last measured segment in a straight
 * line, never rising and never falling below a floor: t(s) = max(floor, t(N) - slope * (s - N)), with
 * slope = max(0, t(N-1) - t(N)). With a single point there is no segment and t(s) = floor for s &gt; 1.
 * This is conservative because spinning-disk throughput decays with a shrinking step as streams are
 * added (each stream adds one seek per round, so throughput behaves like 1/(a + b*s), a convex curve),
 * and a straight continuation of the last step lies below a convex curve. The floor is the all-random
 * bound: even when every object access pays a full seek and rotation the device delivers that much.
 *
 * <p><b>Admission</b> uses {@link #admissibleBytesPerSecond(int)}, the running minimum of the curve over
 * 1..s streams. It is non-increasing, so releasing a volume (one stream fewer) never lowers the throughput
 * the remaining volumes were admitted against; the slight 1-to-2-stream rise of a disk is thus never
 * promised away.
 */
public final class ThroughputCurve {
  private final long[] measuredBytesPerSecond;
  private final long floorBytesPerSecond;
  private final long[] runningMinimumBytesPerSecond;
  private final long slopeBytesPerSecondPerStream;

  /**
   * @param measuredBytesPerSecond throughput at 1, 2, ..., N streams; every point positive
   * @param floorBytesPerSecond lower bound of the extrapolation; at most the smallest measured point
   */
  public ThroughputCurve(long[] measuredBytesPerSecond, long floorBytesPerSecond) {
    if (measuredBytesPerSecond.length == 0) {
      throw new IllegalArgumentException("a throughput curve needs at least one point (1 stream)");
    }
    this.measuredBytesPerSecond = measuredBytesPerSecond.clone();
    this.runningMinimumBytesPerSecond = new long[measuredBytesPerSecond.length];
    long runningMinimum = Long.MAX_VALUE;
    for (int index = 0; index < measuredBytesPerSecond.length; index++) {
      if (measuredBytesPerSecond[index] <= 0) {
        throw new IllegalArgumentException("throughput at " + (index + 1) + " streams must be positive, got "
            + measuredBytesPerSecond[index]);
      }
      runningMinimum = Math.min(runningMinimum, measuredBytesPerSecond[index]);
      runningMinimumBytesPerSecond[index] = runningMinimum;
    }
    if (floorBytesPerSecond < 0 || floorBytesPerSecond > runningMinimum) {
      throw new IllegalArgumentException("throughput floor " + Units.formatBytesPerSecond(floorBytesPerSecond)
          + " must lie between 0 and the smallest measured point " + Units.formatBytesPerSecond(runningMinimum));
    }
    this.floorBytesPerSecond = floorBytesPerSecond;
    int last = measuredBytesPerSecond.length - 1;
    this.slopeBytesPerSecondPerStream = last == 0 ? 0
        : Math.max(0, measuredBytesPerSecond[last - 1] - measuredBytesPerSecond[last]);
  }

  /** A curve that holds one value at every stream count (the floor equals it). */
  public static ThroughputCurve flat(long bytesPerSecond) {
    return new ThroughputCurve(new long[] {bytesPerSecond}, bytesPerSecond);
  }

  /** Measured (1..N) or extrapolated (beyond N) throughput at {@code streams} &ge; 1 concurrent streams. */
  public long bytesPerSecond(int streams) {
    requirePositive(streams);
    int measuredCount = measuredBytesPerSecond.length;
    if (streams <= measuredCount) {
      return measuredBytesPerSecond[streams - 1];
    }
    if (measuredCount == 1) {
      return floorBytesPerSecond;
    }
    long last = measuredBytesPerSecond[measuredCount - 1];
    long streamsBeyond = streams - measuredCount;
    if (slopeBytesPerSecondPerStream == 0) {
      return last;
    }
    if (streamsBeyond > (last - floorBytesPerSecond) / slopeBytesPerSecondPerStream) {
      return floorBytesPerSecond;
    }
    return last - streamsBeyond * slopeBytesPerSecondPerStream;
  }

  /** The throughput admission may promise with {@code streams} &ge; 1 streams: the running minimum over 1..s. */
  public long admissibleBytesPerSecond(int streams) {
    requirePositive(streams);
    int measuredCount = measuredBytesPerSecond.length;
    if (streams <= measuredCount) {
      return runningMinimumBytesPerSecond[streams - 1];
    }
    return Math.min(runningMinimumBytesPerSecond[measuredCount - 1], bytesPerSecond(streams));
  }

  /** The highest throughput anywhere on the curve; no stream count gives more. */
  public long peakBytesPerSecond() {
    return Arrays.stream(measuredBytesPerSecond).max().orElseThrow();
  }

  /** The measured points, 1..N streams. */
  public long[] measuredBytesPerSecond() {
    return measuredBytesPerSecond.clone();
  }

  public long floorBytesPerSecond() {
    return floorBytesPerSecond;
  }

  private static void requirePositive(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("stream count must be at least 1, got " + streams);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ThroughputCurve curve && floorBytesPerSecond == curve.floorBytesPerSecond
        && Arrays.equals(measuredBytesPerSecond, curve.measuredBytesPerSecond);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(measuredBytesPerSecond) + Long.hashCode(floorBytesPerSecond);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("[");
    for (int index = 0; index < measuredBytesPerSecond.length; index++) {
      text.append(index == 0 ? "" : ", ").append(Units.formatBytesPerSecond(measuredBytesPerSecond[index]));
    }
    return text.append("; floor ").append(Units.formatBytesPerSecond(floorBytesPerSecond)).append(']').toString();
  }
}
