package org.xtreemfs.qos.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * The scheduler's whole state as an immutable value: the OSDs with their profiles and committed resources,
 * and the placement of every admitted volume. Every operation returns a new state and leaves this one
 * untouched, so the MRC can compute a decision, persist it, and only then publish the new state.
 *
 * <p>Invariants: OSD uuids are unique and kept sorted (ties in ranking break by uuid); every placement's
 * OSDs exist and accept its type; each OSD's committed resources and stream count equal the sums over the
 * placements on it; no OSD is over-committed. Two states are equal exactly when their OSDs (with profiles)
 * and placements are equal, whatever operations produced them.
 */
public final class ClusterState {
  private static final ClusterState EMPTY = new ClusterState(new OsdState[0], VolumeIndex.EMPTY);

  private final OsdState[] osds;
  private final VolumeIndex volumes;

  private ClusterState(OsdState[] osds, VolumeIndex volumes) {
    this.osds = osds;
    this.volumes = volumes;
  }

  public static ClusterState empty() {
    return EMPTY;
  }

  /**
   * Rebuilds a state from OSDs and saved placements, re-applying every reservation (so a restarted MRC
   * cannot double-book). Throws {@link IllegalArgumentException} naming the volume when a placement refers
   * to an unknown OSD, lands on an OSD whose type does not accept it, repeats a volume id, or over-commits.
   */
  public static ClusterState rebuild(Collection<Osd> osds, Collection<Placement> placements) {
    ClusterState state = EMPTY;
    for (Osd osd : osds) {
      state = state.withOsdAdded(osd.uuid(), osd.profile());
    }
    for (Placement placement : placements) {
      state = state.withPlacement(placement);
    }
    return state;
  }

  /** The OSDs ordered by uuid. */
  public List<OsdState> osds() {
    return Collections.unmodifiableList(Arrays.asList(osds));
  }

  /** The OSDs ordered by uuid, for the scheduler's loops; callers must not modify the array. */
  OsdState[] osdArray() {
    return osds;
  }

  public List<Osd> osdDescriptors() {
    List<Osd> descriptors = new ArrayList<>(osds.length);
    for (OsdState osd : osds) {
      descriptors.add(new Osd(osd.uuid(), osd.profile()));
    }
    return descriptors;
  }

  public Optional<OsdState> osd(String uuid) {
    int index = indexOf(uuid);
    return index >= 0 ? Optional.of(osds[index]) : Optional.empty();
  }

  public Optional<Placement> placement(String volumeId) {
    return Optional.ofNullable(volumes.get(volumeId));
  }

  /** Every placement, ordered by volume id. */
  public List<Placement> placements() {
    return volumes.sortedPlacements();
  }

  public int volumeCount() {
    return volumes.size();
  }

  /** The placements with a stripe on the OSD {@code uuid}, ordered by volume id; empty for an unused OSD. */
  public List<Placement> placementsOn(String uuid) {
    List<Placement> onOsd = new ArrayList<>();
    for (Placement placement : volumes.sortedPlacements()) {
      if (placement.osdUuids().contains(uuid)) {
        onOsd.add(placement);
      }
    }
    return onOsd;
  }

  /** A state with one more, unused OSD. Throws if the uuid is already registered. */
  public ClusterState withOsdAdded(String uuid, OsdProfile profile) {
    Osd osd = new Osd(uuid, profile);
    int index = indexOf(uuid);
    if (index >= 0) {
      throw new IllegalArgumentException("OSD " + uuid + " is already registered");
    }
    int insertAt = -index - 1;
    OsdState[] newOsds = new OsdState[osds.length + 1];
    System.arraycopy(osds, 0, newOsds, 0, insertAt);
    newOsds[insertAt] = OsdState.unused(osd);
    System.arraycopy(osds, insertAt, newOsds, insertAt + 1, osds.length - insertAt);
    return new ClusterState(newOsds, volumes);
  }

  /**
   * Replaces an OSD's profile (a recalibrated or reconfigured device). Refused, leaving the state as it is,
   * when the OSD is unknown, when its new usage type would not accept a volume placed on it, or when its
   * placed volumes would no longer fit; the MRC must release or move those volumes first.
   */
  public OsdUpdate withOsdUpdated(String uuid, OsdProfile profile) {
    int index = indexOf(uuid);
    if (index < 0) {
      return new OsdUpdate.Refused("OSD " + uuid + " is not registered");
    }
    OsdState updated = osds[index].withProfile(profile);
    for (Placement placement : placementsOn(uuid)) {
      if (!profile.usageType().accepts(placement.reservation().type())) {
        return new OsdUpdate.Refused("OSD " + uuid + " holds " + placement.reservation().type() + " volume "
            + placement.volumeId() + ", which a " + profile.usageType() + " OSD does not accept");
      }
    }
    ResourceVector limits = updated.limits();
    for (Dimension dimension : Dimension.values()) {
      if (dimension.of(updated.committed()) > dimension.of(limits)) {
        return new OsdUpdate.Refused("OSD " + uuid + " would be over-committed in " + dimension.fieldName() + ": "
            + dimension.format(dimension.of(updated.committed())) + " placed, " + dimension.format(dimension.of(limits))
            + " offered at " + updated.sequentialStreams() + " streams");
      }
    }
    OsdState[] newOsds = osds.clone();
    newOsds[index] = updated;
    return new OsdUpdate.Applied(new ClusterState(newOsds, volumes));
  }

  /**
   * Removes an OSD that has left the cluster. Every volume with a stripe on it loses its whole placement (its
   * other stripes are released too) and is reported, so the MRC can re-admit it elsewhere or mark it
   * degraded. Removing an unknown OSD changes nothing and reports nothing.
   */
  public OsdRemoval withOsdRemoved(String uuid) {
    int index = indexOf(uuid);
    if (index < 0) {
      return new OsdRemoval(this, List.of());
    }
    List<Placement> released = placementsOn(uuid);
    ClusterState state = this;
    for (Placement placement : released) {
      state = state.withVolumeReleased(placement.volumeId());
    }
    OsdState[] newOsds = new OsdState[state.osds.length - 1];
    System.arraycopy(state.osds, 0, newOsds, 0, index);
    System.arraycopy(state.osds, index + 1, newOsds, index, state.osds.length - index - 1);
    return new OsdRemoval(new ClusterState(newOsds, state.volumes), released);
  }

  /** The state without the volume's placement and with its resources returned; unchanged if unknown. */
  public ClusterState withVolumeReleased(String volumeId) {
    Placement placement = volumes.get(volumeId);
    if (placement == null) {
      return this;
    }
    ResourceVector share = placement.sharePerOsd();
    boolean stream = placement.reservation().type().addsSequentialStream();
    OsdState[] newOsds = osds.clone();
    for (String uuid : placement.osdUuids()) {
      int index = indexOf(uuid);
      newOsds[index] = newOsds[index].withShareRemoved(share, stream);
    }
    return new ClusterState(newOsds, volumes.without(volumeId));
  }

  /**
   * The state with {@code placement} applied. Checks everything a saved placement could get wrong, so the
   * same path serves admission and rebuild; throws {@link IllegalArgumentException} naming the volume.
   */
  ClusterState withPlacement(Placement placement) {
    String volumeId = placement.volumeId();
    if (volumes.get(volumeId) != null) {
      throw new IllegalArgumentException("volume " + volumeId + " is already placed");
    }
    ResourceVector share = placement.sharePerOsd();
    boolean stream = placement.reservation().type().addsSequentialStream();
    OsdState[] newOsds = osds.clone();
    for (String uuid : placement.osdUuids()) {
      int index = indexOf(uuid);
      if (index < 0) {
        throw new IllegalArgumentException("volume " + volumeId + " is placed on unknown OSD " + uuid);
      }
      OsdState osd = newOsds[index];
      if (!osd.profile().usageType().accepts(placement.reservation().type())) {
        throw new IllegalArgumentException("volume " + volumeId + " (" + placement.reservation().type()
            + ") is placed on " + osd.profile().usageType() + " OSD " + uuid);
      }
      OsdState loaded = osd.withShareAdded(share, stream);
      if (loaded.isOverCommitted()) {
        throw new IllegalArgumentException("volume " + volumeId + " over-commits OSD " + uuid + ": "
            + loaded.committed() + " placed, " + loaded.limits() + " offered");
      }
      newOsds[index] = loaded;
    }
    return new ClusterState(newOsds, volumes.with(placement));
  }

  private int indexOf(String uuid) {
    int low = 0;
    int high = osds.length - 1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      int order = osds[middle].uuid().compareTo(uuid);
      if (order < 0) {
        low = middle + 1;
      } else if (order > 0) {
        high = middle - 1;
      } else {
        return middle;
      }
    }
    return -(low + 1);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ClusterState state && Arrays.equals(osds, state.osds) && volumes.equals(state.volumes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(osds) + volumes.hashCode();
  }

  @Override
  public String toString() {
    return "ClusterState[" + osds.length + " OSDs, " + volumes.size() + " volumes]";
  }
}
