package org.xtreemfs.qos.scheduler;

import java.util.List;

/** The state after an OSD left, and the placements that were released because they had a stripe on it. */
public record OsdRemoval(ClusterState state, List<Placement> releasedPlacements) {
  public OsdRemoval {
    releasedPlacements = List.copyOf(releasedPlacements);
  }
}
