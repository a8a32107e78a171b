package org.xtreemfs.qos.routing;

/**
 * FAST routing: random reads to the head, sequential reads to the middle, so each disk sees one kind of read and
 * the tail keeps its disk for the write log. Imbalance is corrected on the serving side by {@link ReadStealing},
 * because only the replicas see the load of all tenants.
 */
public record PatternAwareRouter() implements ReplicaRouter {
    @Override
    public int readReplica(ReadContext context) {
        return context.pattern() == AccessPattern.RANDOM ? HEAD_REPLICA : Math.min(1, context.replicaCount() - 1);
    }
}
