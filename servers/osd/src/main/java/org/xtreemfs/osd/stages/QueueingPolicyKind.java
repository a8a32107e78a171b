package org.xtreemfs.osd.stages;

/** Value of osd.qos.policy: which {@link org.xtreemfs.qos.wfq.QueueingPolicy} the QoS stage runs. */
public enum QueueingPolicyKind {
    /** Per-volume fair queue: reservations from the capability, the rest shared by weight, cold last. */
    FAIR,
    /** Arrival order, for comparisons. */
    FIFO
}
