package org.xtreemfs.qos.scheduler;

import java.util.List;
import java.util.Optional;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.ReservationType;

/**
 * Per reservation type, the largest reservation that would be admitted now, striping included. Each maximum
 * holds with the type's other dimension at its minimum (1 byte, 1 byte per second, 1 IOPS); the two maxima
 * together need not fit, and a rejection reports the largest combination for a concrete request.
 */
public record FreeResources(List<Headroom> headrooms) {

  /** A maximum of 0 means nothing of this type would be admitted; dimensions the type lacks are 0. */
  public record Headroom(ReservationType type, long capacityBytesMax, long throughputBytesPerSecondMax,
      long iopsMax) {

    /**
     * The admissible reservation that is largest in {@code dimension}, its other dimension at the minimum;
     * empty when nothing of this type fits. Precondition: the dimension belongs to the type.
     */
    public Optional<Reservation> largestIn(Dimension dimension) {
      long max = dimension.of(new ResourceVector(capacityBytesMax, throughputBytesPerSecondMax, iopsMax));
      return max == 0 ? Optional.empty()
          : Optional.of(Reservation.of(type, dimension.with(Reservation.smallest(type).demand(), max)));
    }
  }

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
