package org.xtreemfs.qos.model;

import java.util.List;

/** What an OSD is dedicated to; each OSD serves one workload type so sequential and random I/O never mix. */
public enum OsdUsageType {
  SEQUENTIAL,
  RANDOM,
  BEST_EFFORT;

  /** Matching rule of mission §3: equal types, or a cold volume on spare capacity of any OSD. */
  public boolean accepts(ReservationType reservationType) {
    return switch (reservationType) {
      case SEQUENTIAL -> this == SEQUENTIAL;
      case RANDOM -> this == RANDOM;
      case BEST_EFFORT -> this == BEST_EFFORT;
      case COLD -> true;
    };
  }

  /** The dimensions whose headroom matters on an OSD of this type (what its reservations consume). */
  public List<Dimension> dimensions() {
    return switch (this) {
      case SEQUENTIAL -> List.of(Dimension.CAPACITY, Dimension.THROUGHPUT);
      case RANDOM -> List.of(Dimension.CAPACITY, Dimension.IOPS);
      case BEST_EFFORT -> List.of(Dimension.CAPACITY);
    };
  }
}
