package org.xtreemfs.qos.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable map from volume id to placement with cheap updates: ids are spread over a fixed number of
 * buckets by {@link String#hashCode()} (specified by the JDK, so equal contents give equal buckets), and an
 * update copies only one bucket. Buckets are never mutated after construction.
 */
final class VolumeIndex {
  private static final int BUCKET_COUNT = 256;
  static final VolumeIndex EMPTY = new VolumeIndex(emptyBuckets(), 0);

  private final Map<String, Placement>[] buckets;
  private final int size;

  private VolumeIndex(Map<String, Placement>[] buckets, int size) {
    this.buckets = buckets;
    this.size = size;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Map<String, Placement>[] emptyBuckets() {
    Map<String, Placement>[] buckets = new Map[BUCKET_COUNT];
    Arrays.fill(buckets, Map.of());
    return buckets;
  }

  private static int bucketOf(String volumeId) {
    return Math.floorMod(volumeId.hashCode(), BUCKET_COUNT);
  }

  Placement get(String volumeId) {
    return buckets[bucketOf(volumeId)].get(volumeId);
  }

  int size() {
    return size;
  }

  /** Precondition: no placement for this volume id yet. */
  VolumeIndex with(Placement placement) {
    int bucket = bucketOf(placement.volumeId());
    Map<String, Placement> copy = new HashMap<>(buckets[bucket]);
    copy.put(placement.volumeId(), placement);
    Map<String, Placement>[] newBuckets = buckets.clone();
    newBuckets[bucket] = copy;
    return new VolumeIndex(newBuckets, size + 1);
  }

  /** Precondition: a placement for this volume id exists. */
  VolumeIndex without(String volumeId) {
    int bucket = bucketOf(volumeId);
    Map<String, Placement> copy = new HashMap<>(buckets[bucket]);
    copy.remove(volumeId);
    Map<String, Placement>[] newBuckets = buckets.clone();
    newBuckets[bucket] = copy.isEmpty() ? Map.of() : copy;
    return new VolumeIndex(newBuckets, size - 1);
  }

  /** All placements ordered by volume id, so iteration and encoding are deterministic. */
  List<Placement> sortedPlacements() {
    List<Placement> placements = new ArrayList<>(size);
    for (Map<String, Placement> bucket : buckets) {
      placements.addAll(bucket.values());
    }
    placements.sort(Comparator.comparing(Placement::volumeId));
    return placements;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof VolumeIndex index && size == index.size && Arrays.equals(buckets, index.buckets);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(buckets);
  }
}
