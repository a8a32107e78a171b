/**
 * Admission and placement of volume reservations on typed OSDs, as a pure function from an immutable
 * {@link org.xtreemfs.qos.scheduler.ClusterState} to a decision and a new state. Main invariant: in every
 * state the scheduler produces, no OSD carries more capacity, throughput (at its stream count) or IOPS
 * than its profile allows.
 */
package org.xtreemfs.qos.scheduler;
