package org.xtreemfs.qos.scheduler;

import java.util.Objects;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * One OSD with the resources its placed volumes hold. {@code committed} is the sum of the per-OSD shares of
 * the volumes placed here and {@code sequentialStreams} the number of sequential volumes among them; both
 * are derived from the placements, so a rebuilt state reproduces them exactly.
 */
public record OsdState(String uuid, OsdProfile profile, ResourceVector committed, int sequentialStreams) {

  public OsdState {
    Objects.requireNonNull(committed, "committed");
    if (uuid == null || uuid.isBlank() || profile == null) {
      throw new IllegalArgumentException("an OSD needs a uuid and a profile, got " + uuid + ", " + profile);
    }
    if (sequentialStreams < 0) {
      throw new IllegalArgumentException("OSD " + uuid + ": negative stream count " + sequentialStreams);
    }
  }

  static OsdState unused(Osd osd) {
    return new OsdState(osd.uuid(), osd.profile(), ResourceVector.ZERO, 0);
  }

  /** What this OSD may carry in total at its current stream count. */
  public ResourceVector limits() {
    return profile.limits(sequentialStreams);
  }

  /** True when the placed volumes need more than the OSD offers in some dimension; never true in a valid state. */
  public boolean isOverCommitted() {
    return !committed.fitsWithin(limits());
  }

  /**
   * What one more volume may take in {@code dimension}: the limit at the stream count the volume would create
   * minus what is committed, or 0 when adding the stream alone already exhausts the OSD.
   */
  long headroom(Dimension dimension, boolean addsStream) {
    long limit = dimension == Dimension.THROUGHPUT
        ? profile.sequentialThroughput().admissibleBytesPerSecond(Math.max(1, sequentialStreams + (addsStream ? 1 : 0)))
        : dimension.of(profile.limits(sequentialStreams));
    return Math.max(0, limit - dimension.of(committed));
  }

  OsdState withShareAdded(ResourceVector share, boolean addsStream) {
    return new OsdState(uuid, profile, committed.plus(share), sequentialStreams + (addsStream ? 1 : 0));
  }

  OsdState withShareRemoved(ResourceVector share, boolean removesStream) {
    return new OsdState(uuid, profile, committed.minus(share), sequentialStreams - (removesStream ? 1 : 0));
  }

  OsdState withProfile(OsdProfile newProfile) {
    return new OsdState(uuid, newProfile, committed, sequentialStreams);
  }
}
