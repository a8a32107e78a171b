package org.xtreemfs.qos.wfq;

/** Capacity of a fair queue in requests: per flow and in total. Both >= 1, per flow <= total. */
public record QueueBounds(int requestsPerFlowMax, int requestsTotalMax) {
    public QueueBounds {
        if (requestsPerFlowMax < 1 || requestsTotalMax < requestsPerFlowMax) {
            throw new IllegalArgumentException("need 1 <= requestsPerFlowMax <= requestsTotalMax, was "
                    + requestsPerFlowMax + " and " + requestsTotalMax);
        }
    }
}
