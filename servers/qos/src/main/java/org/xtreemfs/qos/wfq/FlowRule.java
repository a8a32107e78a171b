package org.xtreemfs.qos.wfq;

import org.xtreemfs.qos.model.VolumeShare;

/**
 * How a {@link FairPolicy} turns a volume's share into a flow and a request into a cost. The OSD uses
 * {@link ShareRule}, which looks only at the share; the simulator's rule looks the volume up in its scenario
 * (weights and limits the capability does not carry), and tests may add limits.
 */
public interface FlowRule {
    FlowSpec flowSpec(String volumeId, VolumeShare share);

    /** Cost of a request carrying {@code payloadBytes}, in the queue's one unit; in [1, FairQueue.COST_MAX]. */
    long costOf(long payloadBytes);

    /**
     * The bytes a request is charged as ({@link CostRule#chargedBytes}): what {@link #costOf} and the policies'
     * {@code enqueue} then take. The default charges the payload alone.
     */
    default long chargedBytes(long payloadBytes, boolean continuesStream) {
        return payloadBytes;
    }
}
