package org.xtreemfs.qos.routing;

/**
 * Chooses the replica of a chain (index 0 = head) that a client sends a read to. Writes always enter at the head
 * and travel down the chain, whatever the router.
 */
public sealed interface ReplicaRouter permits RoundRobinBindingRouter, PatternAwareRouter {
    int HEAD_REPLICA = 0;

    int readReplica(ReadContext context);
}
