package org.xtreemfs.osd.stages;

/**
 * The order in which the QoS stage releases waiting requests to storage. FIFO now; a weighted fair queue
 * charging each volume by cost replaces it without touching the stage. Not thread-safe: the QoS stage calls
 * it under its lock. The stage enforces the capacity bound, so implementations need not.
 *
 * @param <R> the queued request type
 */
public interface QueueingPolicy<R> {
    /** Adds a request charged to {@code volumeId} with cost {@code costBytes}. */
    void enqueue(R request, String volumeId, long costBytes);

    /** The next request to run, or null when none waits. */
    R dequeue();

    int size();
}
