package org.xtreemfs.qos.model;

import java.util.List;

/** The QoS class of a volume; it fixes which performance dimension the reservation carries. */
public enum ReservationType {
  /** Guaranteed sequential throughput in bytes per second. */
  SEQUENTIAL(Dimension.THROUGHPUT),
  /** Guaranteed random 4 KiB operations per second. */
  RANDOM(Dimension.IOPS),
  /** Capacity only; I/O may wait until the OSD is otherwise idle, so it may use spare capacity on any OSD. */
  COLD(null),
  /** Capacity only; performance as available, on best-effort OSDs. */
  BEST_EFFORT(null);

  private final Dimension performanceDimension;

  ReservationType(Dimension performanceDimension) {
    this.performanceDimension = performanceDimension;
  }

  /** The dimensions a reservation of this type constrains: capacity, then its performance dimension if any. */
  public List<Dimension> dimensions() {
    return performanceDimension == null
        ? List.of(Dimension.CAPACITY)
        : List.of(Dimension.CAPACITY, performanceDimension);
  }

  /** True when a volume of this type adds one concurrent stream to every OSD it is placed on. */
  public boolean addsSequentialStream() {
    return this == SEQUENTIAL;
  }
}
