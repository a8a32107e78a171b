package org.xtreemfs.qos.scheduler;

import java.util.List;
import org.xtreemfs.qos.model.ReservationType;

/**
 * Per reservation type, the largest reservation that would be admitted now, striping included. Each maximum
 * holds with the type's other dimension at its minimum (1 byte, 1 byte per second, 1 IOPS); the two maxima
 * together need not fit, and a rejection reports the largest combination for a concrete request.
 */
public record FreeResources(List<Headroom> headrooms) {

  /** A maximum of 0 means nothing of this type would be admitted; dimensions the type lacks are 0. */
  public record Headroom(ReservationType type, long capacityBytesMax, long throughputBytesPerSecondMax,
      long iopsMax) {}

  public FreeResources {
    headrooms = List.copyOf(headrooms);
  }

  public Headroom headroom(ReservationType type) {
    for (Headroom headroom : headrooms) {
      if (headroom.type() == type) {
        return headroom;
      }
    }
    throw new IllegalArgumentException("no headroom computed for " + type);
  }
}
