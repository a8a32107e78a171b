package org.xtreemfs.qos.scheduler;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Where an admitted volume lives: its reservation striped over distinct OSDs, in stripe order. Every OSD
 * carries the same share, the demand divided by the stripe width and rounded up (RAID-0 style striping
 * sends an equal part of every stream and of the capacity to each stripe position, so the slowest position
 * bounds the volume; a speed-proportional split would not be honoured by the client's layout).
 * Volumes are identified by volume id, never by name, so a rename cannot double-book.
 */
public record Placement(String volumeId, Reservation reservation, List<String> osdUuids) {

  public Placement {
    if (volumeId == null || volumeId.isBlank()) {
      throw new IllegalArgumentException("volume id must not be blank");
    }
    Objects.requireNonNull(reservation, "reservation");
    osdUuids = List.copyOf(osdUuids);
    if (osdUuids.isEmpty()) {
      throw new IllegalArgumentException("volume " + volumeId + ": a placement needs at least one OSD");
    }
    if (new HashSet<>(osdUuids).size() != osdUuids.size()) {
      throw new IllegalArgumentException("volume " + volumeId + ": stripe OSDs must be distinct, got " + osdUuids);
    }
  }

  public int stripeWidth() {
    return osdUuids.size();
  }

  /** The resources each stripe OSD holds for this volume. */
  public ResourceVector sharePerOsd() {
    return reservation.demand().ceilDivide(osdUuids.size());
  }

  /**
   * What each stripe OSD enforces for this volume, as capabilities carry it: its share of the reservation
   * ({@link #sharePerOsd()}), the volume's weight as it is (a weight is a ratio among the flows of one OSD, and
   * every stripe OSD sees the volume's part of each stream alike), and its limit divided over the stripe width
   * like the reservation and rounded up the same way, so the OSD's limit stays at least its reservation and the
   * volume as a whole gets at most the limit (plus the rounding, under one unit per OSD).
   */
  public VolumeShare share() {
    return VolumeShare.of(reservation.type(), sharePerOsd(), reservation.weight(),
        reservation.limit().ceilDivide(osdUuids.size()));
  }
}
