package org.xtreemfs.qos.scheduler;

/** The outcome of asking to admit a volume: placed (with the new state) or rejected (with the reason). */
public sealed interface Admission {
  /** The volume is placed; {@code state} is the cluster state including it. */
  record Admitted(ClusterState state, Placement placement) implements Admission {}

  /** The volume is not placed; the state the request was made against is unchanged. */
  record Rejected(Rejection rejection) implements Admission {}
}
