package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.HashMap;
import java.util.Map;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.ThroughputCurve;

/** Small profiles with round numbers, and an invariant check that recomputes everything from placements. */
final class Clusters {
  private Clusters() {}

  /** Capacity 1000 B; throughput 100, 110, 80, 60 B/s at 1..4 streams, floor 20; 50 IOPS. */
  static OsdProfile small(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.HDD, 1000, new ThroughputCurve(new long[] {100, 110, 80, 60}, 20), 50);
  }

  /** Twice {@link #small} in every dimension, with a flat curve. */
  static OsdProfile large(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.SSD, 2000, ThroughputCurve.flat(200), 100);
  }

  static ClusterState withOsds(Object... uuidsAndProfiles) {
    ClusterState state = ClusterState.empty();
    for (int index = 0; index < uuidsAndProfiles.length; index += 2) {
      state = state.withOsdAdded((String) uuidsAndProfiles[index], (OsdProfile) uuidsAndProfiles[index + 1]);
    }
    return state;
  }

  static ClusterState admitted(ReservationScheduler scheduler, ClusterState state, String volumeId,
      Reservation reservation) {
    Admission admission = scheduler.admit(state, volumeId, reservation);
    assertThat(admission).as("admission of %s %s", volumeId, reservation).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted) admission).state();
  }

  static Rejection rejected(ReservationScheduler scheduler, ClusterState state, String volumeId,
      Reservation reservation) {
    Admission admission = scheduler.admit(state, volumeId, reservation);
    assertThat(admission).as("admission of %s %s", volumeId, reservation).isInstanceOf(Admission.Rejected.class);
    return ((Admission.Rejected) admission).rejection();
  }

  /**
   * Asserts the state invariants without trusting the state's own bookkeeping: committed resources and stream
   * counts are recomputed from the placements and compared with the profile limits at that stream count.
   */
  static void assertConsistentAndNotOverCommitted(ClusterState state) {
    Map<String, ResourceVector> committed = new HashMap<>();
    Map<String, Integer> streams = new HashMap<>();
    for (Placement placement : state.placements()) {
      ResourceVector share = placement.sharePerOsd();
      for (String uuid : placement.osdUuids()) {
        OsdState osd = state.osd(uuid).orElseThrow(() -> new AssertionError("unknown OSD " + uuid));
        if (!osd.profile().usageType().accepts(placement.reservation().type())) {
          fail("volume %s of type %s on %s OSD %s", placement.volumeId(), placement.reservation().type(),
              osd.profile().usageType(), uuid);
        }
        committed.merge(uuid, share, ResourceVector::plus);
        streams.merge(uuid, placement.reservation().type() == ReservationType.SEQUENTIAL ? 1 : 0, Integer::sum);
      }
    }
    for (OsdState osd : state.osds()) {
      ResourceVector recomputed = committed.getOrDefault(osd.uuid(), ResourceVector.ZERO);
      int streamCount = streams.getOrDefault(osd.uuid(), 0);
      if (!osd.committed().equals(recomputed) || osd.sequentialStreams() != streamCount) {
        fail("OSD %s books %s at %d streams, its placements add up to %s at %d streams", osd.uuid(), osd.committed(),
            osd.sequentialStreams(), recomputed, streamCount);
      }
      OsdProfile profile = osd.profile();
      long throughputLimit = streamCount == 0 ? Long.MAX_VALUE
          : Math.min(profile.sequentialThroughput().admissibleBytesPerSecond(streamCount),
              profile.sequentialThroughput().bytesPerSecond(streamCount));
      if (recomputed.capacityBytes() > profile.capacityBytes()
          || recomputed.throughputBytesPerSecond() > throughputLimit || recomputed.iops() > profile.randomIops()) {
        fail("OSD %s over-committed: %s placed at %d streams, profile %s", osd.uuid(), recomputed, streamCount, profile);
      }
    }
  }
}
