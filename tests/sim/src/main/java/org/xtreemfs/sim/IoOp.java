package org.xtreemfs.sim;

import org.xtreemfs.qos.device.IoRequest;

/**
 * One request on its way through an OSD: the tenant (flow) it belongs to, the device request, its cost in the
 * queue's unit, and what to do once the device completes it.
 */
record IoOp(String tenantId, IoRequest request, long cost, Completion onCompletion) {
    /** Called at the completion time. */
    interface Completion {
        void completed(long nowNanos);
    }
}
