package org.xtreemfs.qos.routing;

/** Baseline: streams are bound to replicas round-robin in the order they first read, regardless of pattern. */
public record RoundRobinBindingRouter() implements ReplicaRouter {
    @Override
    public int readReplica(ReadContext context) {
        return context.streamOrdinal() % context.replicaCount();
    }
}
