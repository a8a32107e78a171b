package org.xtreemfs.qos.model;

/**
 * The one rule for a volume's weight and limit, checked by both {@link Reservation} (what the user sets) and
 * {@link VolumeShare} (one OSD's part of it, from the wire), so the two can never disagree.
 *
 * <ul>
 *   <li>Weight: an integer in [1, {@link #WEIGHT_MAX}], default 1. What the reservations leave on an OSD is
 *       shared among the volumes that want it in proportion to their weights.</li>
 *   <li>Limit: an upper bound on the volume's rate, 0 for none, in the unit its reservation is measured in:
 *       IOPS (4 KiB operations) for RANDOM, bytes/s for SEQUENTIAL and for the types without a performance
 *       figure (BEST_EFFORT, COLD). A set limit is at least the reservation (a limit equal to it pins the
 *       volume to exactly its reservation); the figure of the other unit is always 0.</li>
 * </ul>
 */
final class WeightAndLimit {
  /** A weight of 1000:1 already gives the lighter flow about 0.1 % of the spare capacity; more is noise. */
  static final long WEIGHT_MAX = 1000;

  private WeightAndLimit() {}

  /** The dimension a limit of {@code type} is expressed in. */
  static Dimension limitDimension(ReservationType type) {
    return type == ReservationType.RANDOM ? Dimension.IOPS : Dimension.THROUGHPUT;
  }

  /**
   * Refuses, with an {@link InvalidQosValueException} naming {@code fieldPrefix + "weight"} or
   * {@code fieldPrefix + "limit"} and the value, a weight or limit that breaks the rules above.
   */
  static void check(String fieldPrefix, ReservationType type, long throughputBytesPerSecond, long iops, long weight,
      long limitThroughputBytesPerSecond, long limitIops) {
    if (weight < 1 || weight > WEIGHT_MAX) {
      throw new InvalidQosValueException(fieldPrefix + "weight", Long.toString(weight),
          "must be an integer from 1 to " + WEIGHT_MAX);
    }
    checkLimit(fieldPrefix, type, Dimension.THROUGHPUT, limitThroughputBytesPerSecond, throughputBytesPerSecond);
    checkLimit(fieldPrefix, type, Dimension.IOPS, limitIops, iops);
  }

  private static void checkLimit(String fieldPrefix, ReservationType type, Dimension dimension, long limit,
      long reserved) {
    String field = fieldPrefix + "limit";
    if (limit < 0) {
      throw new InvalidQosValueException(field, dimension.format(limit), "must not be negative");
    }
    if (limit == 0) {
      return;
    }
    Dimension expected = limitDimension(type);
    if (dimension != expected) {
      throw new InvalidQosValueException(field, dimension.format(limit), "is not allowed on a "
          + Units.displayName(type) + " volume; its limit is in " + (expected == Dimension.IOPS ? "IOPS" : "bytes/s"));
    }
    if (limit < reserved) {
      throw new InvalidQosValueException(field, dimension.format(limit), "is below the reservation's "
          + dimension.format(reserved) + "; a limit must be at least the reservation");
    }
  }
}
