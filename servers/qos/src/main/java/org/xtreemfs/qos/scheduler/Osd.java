package org.xtreemfs.qos.scheduler;

import java.util.Objects;
import org.xtreemfs.qos.model.OsdProfile;

/** An OSD as the scheduler knows it: its UUID (its identity in the DIR) and its capability profile. */
public record Osd(String uuid, OsdProfile profile) {
  public Osd {
    if (uuid == null || uuid.isBlank()) {
      throw new IllegalArgumentException("OSD uuid must not be blank");
    }
    Objects.requireNonNull(profile, "profile");
  }
}
