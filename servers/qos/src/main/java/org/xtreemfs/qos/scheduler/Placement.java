package org.xtreemfs.qos.scheduler;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Where an admitted volume lives: its reservation striped over distinct OSDs, in stripe order; a replicated
 * volume ({@code replicas} > 1) lists one stripe per replica, replica after replica ({@code osdUuids[r * width +
 * p]} holds stripe position p of replica r), and every copy carries the whole per-position share, since every
 * replica of a chain applies every write. Every OSD
 * carries the same share, the demand divided by the stripe width and rounded up (RAID-0 style striping
 * sends an equal part of every stream and of the capacity to each stripe position, so the slowest position
 * bounds the volume; a speed-proportional split would not be honoured by the client's layout).
 * Volumes are identified by volume id, never by name, so a rename cannot double-book.
 */
public record Placement(String volumeId, Reservation reservation, List<String> osdUuids, int replicas) {

  /** An unreplicated placement. */
  public Placement(String volumeId, Reservation reservation, List<String> osdUuids) {
    this(volumeId, reservation, osdUuids, 1);
  }

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
    if (replicas < 1 || osdUuids.size() % replicas != 0) {
      throw new IllegalArgumentException("volume " + volumeId + ": " + osdUuids.size() + " OSDs do not make "
          + replicas + " replicas of one stripe width");
    }
  }

  /** OSDs per replica: the stripe width of the volume's files. */
  public int stripeWidth() {
    return osdUuids.size() / replicas;
  }

  /** The stripe OSDs of replica {@code replica} (0 = the head of every chain), in stripe order. */
  public List<String> replicaOsds(int replica) {
    return osdUuids.subList(replica * stripeWidth(), (replica + 1) * stripeWidth());
  }

  /** The resources each OSD holds for this volume: the demand divided by the stripe width (per replica). */
  public ResourceVector sharePerOsd() {
    return reservation.demand().ceilDivide(stripeWidth());
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
        reservation.limit().ceilDivide(stripeWidth()));
  }
}
