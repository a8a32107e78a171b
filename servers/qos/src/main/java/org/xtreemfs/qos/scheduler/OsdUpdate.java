package org.xtreemfs.qos.scheduler;

/** The outcome of replacing an OSD's profile: the new state, or the reason the old one stays. */
public sealed interface OsdUpdate {
  record Applied(ClusterState state) implements OsdUpdate {}

  record Refused(String reason) implements OsdUpdate {}
}
