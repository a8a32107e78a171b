package org.xtreemfs.bench.qos;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.scheduler.Admission;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.FreeResources;
import org.xtreemfs.qos.scheduler.OsdState;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * One pass of a workload through one scheduler policy, with the figures the benchmark reports. The timed part
 * is the admission loop alone, as wall-clock time and as this thread's CPU time (the figure to compare with
 * the target on a shared, loaded machine); the window "below the threshold" holds the requests offered while the total
 * offered demand, this request included, stays under the threshold share of capacity.
 */
record StrategyRun(long elapsedNanos, long cpuNanos, int[] rejectedBelowThresholdByType, int[] rejectedByType, int offeredBelowThreshold, int acceptedBelowThreshold, int acceptedTotal,
    int osdsUsedAtThreshold, int lowerBoundAtThreshold, int osdsUsedAtEnd, int lowerBoundAtEnd,
    FreeResources freeAtEnd) {

  static StrategyRun run(PlacementWorkload workload, ReservationScheduler scheduler, double thresholdShare) {
    ClusterState state = ClusterState.rebuild(workload.osds(), List.of());
    ClusterState atThreshold = state;
    int offeredBelow = 0;
    int acceptedBelow = 0;
    int accepted = 0;
    int[] rejectedBelowByType = new int[ReservationType.values().length];
    int[] rejectedByType = new int[ReservationType.values().length];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    for (int index = 0; index < workload.requests().size(); index++) {
      PlacementWorkload.Request request = workload.requests().get(index);
      Admission admission = scheduler.admit(state, request.volumeId(), request.reservation());
      boolean below = workload.offeredDemandShareAfter()[index] < thresholdShare;
      if (admission instanceof Admission.Admitted admitted) {
        state = admitted.state();
        accepted++;
        acceptedBelow += below ? 1 : 0;
      } else {
        rejectedByType[request.reservation().type().ordinal()]++;
        rejectedBelowByType[request.reservation().type().ordinal()] += below ? 1 : 0;
      }
      if (below) {
        offeredBelow++;
        atThreshold = state;
      }
    }
    long elapsed = System.nanoTime() - start;
    long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
    return new StrategyRun(elapsed, cpu, rejectedBelowByType, rejectedByType, offeredBelow, acceptedBelow, accepted, osdsUsed(atThreshold),
        OsdLowerBound.of(atThreshold), osdsUsed(state), OsdLowerBound.of(state), scheduler.freeResources(state));
  }

  private static int osdsUsed(ClusterState state) {
    int used = 0;
    for (OsdState osd : state.osds()) {
      used += osd.committed().capacityBytes() > 0 ? 1 : 0;
    }
    return used;
  }
}
