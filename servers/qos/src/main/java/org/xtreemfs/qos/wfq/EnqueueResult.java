package org.xtreemfs.qos.wfq;

/** Outcome of offering a request to the queue. A rejected request was not stored; the caller owns it. */
public sealed interface EnqueueResult {

    record Accepted() implements EnqueueResult {}

    /** The request was refused; {@code boundRequests} is the bound that was hit (0 for an unknown flow). */
    record Rejected(String flowId, Reason reason, int boundRequests) implements EnqueueResult {
        public String message() {
            return switch (reason) {
                case FLOW_QUEUE_FULL -> "flow " + flowId + " already has " + boundRequests + " queued requests "
                        + "(requestsPerFlowMax)";
                case QUEUE_FULL -> "queue full with " + boundRequests + " requests (requestsTotalMax); refused "
                        + "a request of flow " + flowId;
                case UNKNOWN_FLOW -> "flow " + flowId + " is not configured";
            };
        }
    }

    enum Reason {
        FLOW_QUEUE_FULL,
        QUEUE_FULL,
        UNKNOWN_FLOW
    }

    default boolean accepted() {
        return this instanceof Accepted;
    }
}
