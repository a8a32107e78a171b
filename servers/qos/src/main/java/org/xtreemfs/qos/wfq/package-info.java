/**
 * The OSD's per-volume fair queue in the manner of mClock: reservations (floors that hold as capacity varies),
 * weights (shares of spare capacity), limits (caps) and cost-based charging. Invariant: bounded and
 * work-conserving — it never holds more than its bounds and never withholds a request that is eligible now.
 */
package org.xtreemfs.qos.wfq;
