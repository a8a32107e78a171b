package org.xtreemfs.qos.model;

import java.util.Objects;

/**
 * A volume's QoS reservation, fixed at volume creation. A performance figure that does not belong to the
 * type is an error, and so is a missing one that does; absent figures are stored as 0.
 * Invariant: capacity &gt; 0; throughput &gt; 0 exactly when SEQUENTIAL; IOPS &gt; 0 exactly when RANDOM.
 *
 * <p>With it the user sets how the volume shares an OSD beyond its reservation: a weight (what the
 * reservations leave is shared in proportion to weights; default 1) and an optional limit (a cap on its rate,
 * in the reservation's unit: IOPS for RANDOM, bytes/s otherwise; at least the reservation; 0 for none). Their
 * rules are {@link WeightAndLimit}'s, shared with {@link VolumeShare}. Admission ignores both ({@link #demand()}
 * leaves them out): a weight only divides capacity nobody reserved, and a limit only lowers what the volume
 * itself may take, so neither changes whether the reservations fit their OSDs.
 */
public record Reservation(ReservationType type, long capacityBytes, long throughputBytesPerSecond, long iops,
    long weight, long limitThroughputBytesPerSecond, long limitIops) {
  /** The weight of a volume that sets none. */
  public static final long WEIGHT_DEFAULT = 1;
  /** The largest weight accepted. */
  public static final long WEIGHT_MAX = WeightAndLimit.WEIGHT_MAX;

  public Reservation {
    Objects.requireNonNull(type, "type");
    if (capacityBytes <= 0) {
      throw new InvalidQosValueException(Dimension.CAPACITY.fieldName(), Units.formatBytes(capacityBytes),
          "must be positive");
    }
    checkPerformance(type, Dimension.THROUGHPUT, throughputBytesPerSecond);
    checkPerformance(type, Dimension.IOPS, iops);
    WeightAndLimit.check("", type, throughputBytesPerSecond, iops, weight, limitThroughputBytesPerSecond, limitIops);
  }

  /** A reservation with the default weight and no limit. */
  public Reservation(ReservationType type, long capacityBytes, long throughputBytesPerSecond, long iops) {
    this(type, capacityBytes, throughputBytesPerSecond, iops, WEIGHT_DEFAULT, 0, 0);
  }

  public static Reservation sequential(long capacityBytes, long throughputBytesPerSecond) {
    return new Reservation(ReservationType.SEQUENTIAL, capacityBytes, throughputBytesPerSecond, 0);
  }

  public static Reservation random(long capacityBytes, long iops) {
    return new Reservation(ReservationType.RANDOM, capacityBytes, 0, iops);
  }

  public static Reservation cold(long capacityBytes) {
    return new Reservation(ReservationType.COLD, capacityBytes, 0, 0);
  }

  public static Reservation bestEffort(long capacityBytes) {
    return new Reservation(ReservationType.BEST_EFFORT, capacityBytes, 0, 0);
  }

  /** The smallest valid reservation of {@code type}: 1 byte, and 1 byte per second or 1 IOPS where required. */
  public static Reservation smallest(ReservationType type) {
    ResourceVector demand = ResourceVector.ZERO;
    for (Dimension dimension : type.dimensions()) {
      demand = dimension.with(demand, 1);
    }
    return of(type, demand);
  }

  /** A reservation of {@code type} with the given demand; the caller guarantees the vector suits the type. */
  public static Reservation of(ReservationType type, ResourceVector demand) {
    return new Reservation(type, demand.capacityBytes(), demand.throughputBytesPerSecond(), demand.iops());
  }

  /**
   * Builds a reservation from the strings a tool receives ("sequential", "200GiB", "150MiB/s", null), with the
   * default weight and no limit. {@code throughputText} and {@code iopsText} may be null when not given.
   */
  public static Reservation parse(String typeText, String capacityText, String throughputText, String iopsText) {
    return parse(typeText, capacityText, throughputText, iopsText, null, null);
  }

  /**
   * As {@link #parse(String, String, String, String)}, with a weight ("3"; null for the default) and a limit
   * (null for none; "0" also means none) in the type's limit unit: "2500" IOPS for RANDOM, "200MiB/s" otherwise.
   */
  public static Reservation parse(String typeText, String capacityText, String throughputText, String iopsText,
      String weightText, String limitText) {
    ReservationType type = parseType(typeText);
    long capacityBytes = Units.parseBytes(Dimension.CAPACITY.fieldName(), capacityText);
    long throughputBytesPerSecond = throughputText == null ? 0
        : Units.parseBytesPerSecond(Dimension.THROUGHPUT.fieldName(), throughputText);
    long iops = iopsText == null ? 0 : Units.parseIops(Dimension.IOPS.fieldName(), iopsText);
    long weight = weightText == null ? WEIGHT_DEFAULT : parseWeight(weightText);
    long limit = limitText == null ? 0 : parseLimit(type, limitText);
    boolean limitInIops = limitDimension(type) == Dimension.IOPS;
    return new Reservation(type, capacityBytes, throughputBytesPerSecond, iops, weight,
        limitInIops ? 0 : limit, limitInIops ? limit : 0);
  }

  /** A weight as typed ("3"); a non-integer or one outside [1, WEIGHT_MAX] names the field "weight". */
  public static long parseWeight(String weightText) {
    long weight;
    try {
      weight = Long.parseLong(weightText.strip());
    } catch (NumberFormatException notInteger) {
      throw new InvalidQosValueException("weight", weightText, "is not an integer; give e.g. 3");
    }
    WeightAndLimit.check("", ReservationType.BEST_EFFORT, 0, 0, weight, 0, 0);
    return weight;
  }

  /** A limit as typed, in the unit of {@code type}'s limit (see {@link #limitDimension}); the field is "limit". */
  public static long parseLimit(ReservationType type, String limitText) {
    return limitDimension(type) == Dimension.IOPS ? Units.parseIops("limit", limitText)
        : Units.parseBytesPerSecond("limit", limitText);
  }

  /** The dimension a limit of {@code type} is in: IOPS for RANDOM, THROUGHPUT (bytes/s) for the others. */
  public static Dimension limitDimension(ReservationType type) {
    return WeightAndLimit.limitDimension(type);
  }

  /** The limit over all stripes (0 capacity; 0 where not set). */
  public ResourceVector limit() {
    return new ResourceVector(0, limitThroughputBytesPerSecond, limitIops);
  }

  /** True when a limit is set. */
  public boolean limited() {
    return limitThroughputBytesPerSecond > 0 || limitIops > 0;
  }

  /** Accepts the type names case-insensitively, with '-' or '_' ("best-effort", "BEST_EFFORT"). */
  public static ReservationType parseType(String typeText) {
    return Units.parseChoice(ReservationType.class, "type", typeText);
  }

  /** The resources this reservation demands in total, over all its stripes; weight and limit are no demand. */
  public ResourceVector demand() {
    return new ResourceVector(capacityBytes, throughputBytesPerSecond, iops);
  }

  private static void checkPerformance(ReservationType type, Dimension dimension, long value) {
    boolean required = type.dimensions().contains(dimension);
    if (value < 0) {
      throw new InvalidQosValueException(dimension.fieldName(), dimension.format(value), "must not be negative");
    }
    if (required && value == 0) {
      throw new InvalidQosValueException(dimension.fieldName(), dimension.format(value),
          "is missing or zero; a " + Units.displayName(type) + " reservation needs a positive " + dimension.fieldName());
    }
    if (!required && value != 0) {
      throw new InvalidQosValueException(dimension.fieldName(), dimension.format(value),
          "is not allowed on a " + Units.displayName(type) + " reservation");
    }
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(Units.displayName(type)).append(' ').append(Units.formatBytes(capacityBytes));
    if (throughputBytesPerSecond > 0) {
      text.append(' ').append(Units.formatBytesPerSecond(throughputBytesPerSecond));
    }
    if (iops > 0) {
      text.append(' ').append(Units.formatIops(iops));
    }
    if (weight != WEIGHT_DEFAULT) {
      text.append(" weight ").append(weight);
    }
    if (limited()) {
      Dimension dimension = limitDimension(type);
      text.append(" limit ").append(dimension.format(dimension.of(limit())));
    }
    return text.toString();
  }
}
