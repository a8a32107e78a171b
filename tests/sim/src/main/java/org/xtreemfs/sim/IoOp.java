package org.xtreemfs.sim;

import org.xtreemfs.qos.device.IoRequest;

/**
 * One request on its way through an OSD: the tenant (flow) it belongs to, the device request, its cost in the
 * queue's unit, what to do once the device completes it, and whether an idle peer replica may steal it (a read
 * of a stream its client classified as random, {@code qos.routing.ReadStealing#mayStealReadOf}).
 */
record IoOp(String tenantId, IoRequest request, long cost, Completion onCompletion, boolean stealable) {
    /** A request no peer may steal. */
    IoOp(String tenantId, IoRequest request, long cost, Completion onCompletion) {
        this(tenantId, request, cost, onCompletion, false);
    }

    /** Called at the completion time. */
    interface Completion {
        void completed(long nowNanos);
    }
}
