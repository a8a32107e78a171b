package org.xtreemfs.qos.wfq;

/**
 * How a {@link FairPolicy} turns a volume's share into a flow and a request into a cost. The OSD uses
 * {@link ShareRule}; tests and the simulator may add limits, which the capability does not carry.
 */
public interface FlowRule {
    FlowSpec flowSpec(VolumeShare share);

    /** Cost of a request carrying {@code payloadBytes}, in the queue's one unit; in [1, FairQueue.COST_MAX]. */
    long costOf(long payloadBytes);
}
