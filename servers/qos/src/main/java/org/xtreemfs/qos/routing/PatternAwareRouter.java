package org.xtreemfs.qos.routing;

/**
 * FAST routing: random reads to the head, sequential reads to the middle, so each disk sees one kind of read
 * (the tail keeps its disk for the write log). With stealing, a read whose preferred replica has at least
 * {@code stealBusyOutstandingMin} outstanding requests goes instead to the least loaded replica that has at most
 * {@code stealIdleOutstandingMax} (ties to the one nearest the tail, whose disk mostly just appends).
 */
public record PatternAwareRouter(boolean stealing, int stealBusyOutstandingMin, int stealIdleOutstandingMax)
        implements ReplicaRouter {

    public PatternAwareRouter {
        if (stealBusyOutstandingMin < 1 || stealIdleOutstandingMax < 0
                || stealIdleOutstandingMax >= stealBusyOutstandingMin) {
            throw new IllegalArgumentException("need 0 <= stealIdleOutstandingMax < stealBusyOutstandingMin");
        }
    }

    public static PatternAwareRouter withoutStealing() {
        return new PatternAwareRouter(false, 1, 0);
    }

    /** Steal only for an idle replica while the preferred one has a queue. */
    public static PatternAwareRouter stealingWhenIdle(int busyOutstandingMin) {
        return new PatternAwareRouter(true, busyOutstandingMin, 0);
    }

    @Override
    public int readReplica(ReadContext context) {
        int replicaCount = context.replicaCount();
        int preferred = context.pattern() == AccessPattern.RANDOM ? HEAD_REPLICA : Math.min(1, replicaCount - 1);
        if (!stealing || context.outstandingPerReplica().get(preferred) < stealBusyOutstandingMin) {
            return preferred;
        }
        int chosen = preferred;
        int chosenOutstanding = context.outstandingPerReplica().get(preferred);
        for (int replica = replicaCount - 1; replica >= 0; replica--) {
            int outstanding = context.outstandingPerReplica().get(replica);
            if (outstanding <= stealIdleOutstandingMax && outstanding < chosenOutstanding) {
                chosen = replica;
                chosenOutstanding = outstanding;
            }
        }
        return chosen;
    }
}
