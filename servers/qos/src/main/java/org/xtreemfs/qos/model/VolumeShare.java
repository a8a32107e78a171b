package org.xtreemfs.qos.model;

import java.util.List;
import java.util.Objects;

/**
 * One OSD's share of a volume's reservation, as the signed capability carries it (XCap.qos_share): the
 * volume's type and this OSD's part of its throughput (SEQUENTIAL) or 4 KiB IOPS (RANDOM). Capacity is not
 * part of it: the OSD schedules I/O, it does not book space. The MRC derives it from an admitted placement
 * ({@link #of}), {@code foundation.qos.QosWire} is its only codec, and the OSD's fair queue
 * ({@code qos.wfq.ShareRule}) turns it into a flow.
 *
 * <p>It lives in qos.model, not qos.wfq, because it is a contract between the scheduler (producer, on the
 * MRC) and the fair queue (consumer, on the OSD), and both already depend on the model and not on each other;
 * like every model value it is validated on construction.
 *
 * <p>With the rates it carries the volume's weight and this OSD's part of its limit (the reservation's rules
 * for both, {@link WeightAndLimit}: weight in [1, 1000]; a limit in IOPS for RANDOM and bytes/s otherwise, at
 * least the share's reservation, 0 for none).
 *
 * <p>Invariant: throughput &gt; 0 exactly for SEQUENTIAL, IOPS &gt; 0 exactly for RANDOM; COLD and BEST_EFFORT
 * carry no rate. Anything else is refused with an {@link InvalidQosValueException} naming
 * {@code qos_share.<field>} (the only place a share comes from outside is that wire field) and the value.
 */
public record VolumeShare(ReservationType type, long throughputBytesPerSecond, long iops, long weight,
    long limitThroughputBytesPerSecond, long limitIops) {
  /** Prefix of the field names in error messages: the capability field that carries a share. */
  public static final String FIELD_PREFIX = "qos_share.";

  /** A volume without a reservation, or one this OSD knows nothing about: best-effort. */
  public static final VolumeShare BEST_EFFORT = new VolumeShare(ReservationType.BEST_EFFORT, 0, 0);

  public VolumeShare {
    Objects.requireNonNull(type, "type");
    checkRate(type, Dimension.THROUGHPUT, throughputBytesPerSecond);
    checkRate(type, Dimension.IOPS, iops);
    WeightAndLimit.check(FIELD_PREFIX, type, throughputBytesPerSecond, iops, weight, limitThroughputBytesPerSecond,
        limitIops);
  }

  /** A share with the default weight and no limit. */
  public VolumeShare(ReservationType type, long throughputBytesPerSecond, long iops) {
    this(type, throughputBytesPerSecond, iops, Reservation.WEIGHT_DEFAULT, 0, 0);
  }

  public static VolumeShare sequential(long throughputBytesPerSecond) {
    return new VolumeShare(ReservationType.SEQUENTIAL, throughputBytesPerSecond, 0);
  }

  public static VolumeShare random(long iops) {
    return new VolumeShare(ReservationType.RANDOM, 0, iops);
  }

  public static VolumeShare cold() {
    return new VolumeShare(ReservationType.COLD, 0, 0);
  }

  /**
   * The share of one stripe OSD of a volume of this type, given what each stripe OSD holds for it
   * ({@code qos.scheduler.Placement.sharePerOsd()}, the one authority on how a reservation is split): the
   * rates of the type's dimensions, the default weight, no limit.
   */
  public static VolumeShare of(ReservationType type, ResourceVector perOsd) {
    return of(type, perOsd, Reservation.WEIGHT_DEFAULT, ResourceVector.ZERO);
  }

  /**
   * As {@link #of(ReservationType, ResourceVector)} with the volume's weight and this OSD's part of its limit
   * ({@code Placement.share()} divides it); only the limit of the type's limit dimension is taken.
   */
  public static VolumeShare of(ReservationType type, ResourceVector perOsd, long weight, ResourceVector limitPerOsd) {
    List<Dimension> dimensions = type.dimensions();
    Dimension limitDimension = WeightAndLimit.limitDimension(type);
    return new VolumeShare(type,
        dimensions.contains(Dimension.THROUGHPUT) ? perOsd.throughputBytesPerSecond() : 0,
        dimensions.contains(Dimension.IOPS) ? perOsd.iops() : 0, weight,
        limitDimension == Dimension.THROUGHPUT ? limitPerOsd.throughputBytesPerSecond() : 0,
        limitDimension == Dimension.IOPS ? limitPerOsd.iops() : 0);
  }

  /** True when a limit is set. */
  public boolean limited() {
    return limitThroughputBytesPerSecond > 0 || limitIops > 0;
  }

  private static void checkRate(ReservationType type, Dimension dimension, long value) {
    boolean required = type.dimensions().contains(dimension);
    if (value < 0 || (required && value == 0) || (!required && value != 0)) {
      throw new InvalidQosValueException(FIELD_PREFIX + dimension.fieldName(), dimension.format(value),
          required ? "must be positive in a " + type + " share" : "must be 0 in a " + type + " share");
    }
  }
}
