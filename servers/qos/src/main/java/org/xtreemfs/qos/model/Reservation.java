package org.xtreemfs.qos.model;

import java.util.Objects;

/**
 * A volume's QoS reservation, fixed at volume creation. A performance figure that does not belong to the
 * type is an error, and so is a missing one that does; absent figures are stored as 0.
 * Invariant: capacity &gt; 0; throughput &gt; 0 exactly when SEQUENTIAL; IOPS &gt; 0 exactly when RANDOM.
 */
public record Reservation(ReservationType type, long capacityBytes, long throughputBytesPerSecond, long iops) {

  public Reservation {
    Objects.requireNonNull(type, "type");
    if (capacityBytes <= 0) {
      throw new InvalidQosValueException(Dimension.CAPACITY.fieldName(), Units.formatBytes(capacityBytes),
          "must be positive");
    }
    checkPerformance(type, Dimension.THROUGHPUT, throughputBytesPerSecond);
    checkPerformance(type, Dimension.IOPS, iops);
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
   * Builds a reservation from the strings a tool receives ("sequential", "200GiB", "150MiB/s", null).
   * {@code throughputText} and {@code iopsText} may be null when not given.
   */
  public static Reservation parse(String typeText, String capacityText, String throughputText, String iopsText) {
    ReservationType type = parseType(typeText);
    long capacityBytes = Units.parseBytes(Dimension.CAPACITY.fieldName(), capacityText);
    long throughputBytesPerSecond = throughputText == null ? 0
        : Units.parseBytesPerSecond(Dimension.THROUGHPUT.fieldName(), throughputText);
    long iops = iopsText == null ? 0 : Units.parseIops(Dimension.IOPS.fieldName(), iopsText);
    return new Reservation(type, capacityBytes, throughputBytesPerSecond, iops);
  }

  /** Accepts the type names case-insensitively, with '-' or '_' ("best-effort", "BEST_EFFORT"). */
  public static ReservationType parseType(String typeText) {
    return Units.parseChoice(ReservationType.class, "type", typeText);
  }

  /** The resources this reservation demands in total, over all its stripes. */
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
    return text.toString();
  }
}
