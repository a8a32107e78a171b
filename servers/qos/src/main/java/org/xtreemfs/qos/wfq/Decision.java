package org.xtreemfs.qos.wfq;

/** What the device should do next, as decided by {@link FairQueue#dequeue(long)} or a {@link QueueingPolicy}. */
public sealed interface Decision<T> {

    /** Serve this request now; {@code phase} says which rule picked it. */
    record Dispatch<T>(String flowId, T request, long cost, Phase phase) implements Decision<T> {}

    /** Requests wait but all of them are held back by limits; ask again at {@code eligibleNanos}. */
    record WaitUntil<T>(long eligibleNanos) implements Decision<T> {}

    /** Nothing is queued. */
    record Empty<T>() implements Decision<T> {}

    enum Phase {
        /** A reservation was due (R tag <= now). */
        CONSTRAINT,
        /** Spare capacity, shared by weight among reserved and best-effort flows. */
        WEIGHT,
        /** Nothing else was eligible, so a cold flow was served. */
        COLD,
        /** FIFO policy: arrival order, no QoS; cost in bytes. */
        ARRIVAL
    }
}
