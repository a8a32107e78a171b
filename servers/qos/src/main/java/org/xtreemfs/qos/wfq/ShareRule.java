package org.xtreemfs.qos.wfq;

import java.util.Objects;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The one rule mapping a volume's share of an OSD (from its capability) and the OSD's usage type to a flow of
 * the fair queue and the cost of a request. One cost unit per OSD, so all flows of its queue compare:
 * <ul>
 *   <li>SEQUENTIAL and BEST_EFFORT OSDs charge bytes: a request costs its payload (a write's data, a read's
 *       requested range), so a 1 MiB request costs 256 times a 4 KiB one; metadata-only requests (truncate,
 *       fsync, size) cost 1.</li>
 *   <li>RANDOM OSDs charge 4 KiB-equivalent I/Os ({@link CostRule.FourKibIos}): a request up to 4 KiB costs 1,
 *       and every further {@code bytesPerRandomIo} (started) 1 more, where bytesPerRandomIo is what the device
 *       transfers sequentially in the time of one random I/O (single-stream throughput / random IOPS of its
 *       profile, at least 4 KiB): a large random request costs one positioning plus its transfer.</li>
 * </ul>
 * Flows: a SEQUENTIAL share on a SEQUENTIAL OSD reserves its throughput in bytes/s, a RANDOM share on a RANDOM
 * OSD its IOPS; a COLD volume is a cold flow on any OSD (served only when nothing else is eligible); everything
 * else — best-effort volumes, volumes without a share (unknown to this OSD), a share of the other type
 * (placement never puts one there; the OSD cannot honour a reservation in another unit) — is a best-effort
 * flow, never refused. A reserved share always has a positive rate ({@link VolumeShare}'s invariant).
 *
 * <p>Weight and limit come from the share (the volume's own, set with its reservation; weight 1 and no limit
 * when the capability carries none). The weight divides what the reservations leave among the flows that want
 * it, a reserved flow competing for it like a best-effort one on top of its reservation. The limit caps the
 * flow's rate even when the disk is idle, when it is in this OSD's cost unit: a bytes/s limit (SEQUENTIAL,
 * BEST_EFFORT, COLD shares) on SEQUENTIAL and BEST_EFFORT OSDs, an IOPS limit (RANDOM shares) on RANDOM OSDs.
 * A limit in the other unit is dropped like a reservation in the other unit (placement never puts such a
 * volume there, and converting would need the request sizes the rule does not know). A share's limit is at
 * least its reservation, so the FlowSpec's rule (limit 0 or &gt;= reservation) holds.
 */
public record ShareRule(OsdUsageType usageType, CostRule costRule) implements FlowRule {
    public ShareRule {
        Objects.requireNonNull(usageType, "usageType");
        Objects.requireNonNull(costRule, "costRule");
    }

    /** The rule for an OSD with this profile: its usage type and the cost unit that type reserves in. */
    public static ShareRule forOsd(OsdProfile profile) {
        return switch (profile.usageType()) {
            case RANDOM -> new ShareRule(OsdUsageType.RANDOM, new CostRule.FourKibIos(bytesPerRandomIo(profile)));
            case SEQUENTIAL, BEST_EFFORT -> new ShareRule(profile.usageType(),
                    new CostRule.Bytes(bytesPerRandomIo(profile)));
        };
    }

    /** Bytes the device transfers sequentially (one stream) in the time of one random I/O; >= 4 KiB. */
    public static long bytesPerRandomIo(OsdProfile profile) {
        long streamBytesPerSecond = profile.sequentialThroughput().bytesPerSecond(1);
        return Math.max(CostRule.FourKibIos.IO_BYTES, streamBytesPerSecond / Math.max(1, profile.randomIops()));
    }

    /**
     * What the device does in one second in this rule's cost unit, for {@link BufferedWritePacing}: one stream's
     * bytes per second on a byte-charged OSD (a positioning costs {@link #bytesPerRandomIo} of them), the random
     * IOPS on an I/O-charged one (one cost unit is one positioning).
     */
    public static long capacityCostPerSecond(OsdProfile profile) {
        return switch (profile.usageType()) {
            case RANDOM -> Math.max(1, profile.randomIops());
            case SEQUENTIAL, BEST_EFFORT -> Math.max(1, profile.sequentialThroughput().bytesPerSecond(1));
        };
    }

    @Override
    public FlowSpec flowSpec(String volumeId, VolumeShare share) {
        return flowSpec(share);
    }

    public FlowSpec flowSpec(VolumeShare share) {
        long weight = share.weight();
        FlowSpec flow = switch (share.type()) {
            case SEQUENTIAL -> usageType == OsdUsageType.SEQUENTIAL
                    ? FlowSpec.reserved(share.throughputBytesPerSecond(), weight) : FlowSpec.bestEffort(weight);
            case RANDOM -> usageType == OsdUsageType.RANDOM
                    ? FlowSpec.reserved(share.iops(), weight) : FlowSpec.bestEffort(weight);
            case COLD -> FlowSpec.cold(weight);
            case BEST_EFFORT -> FlowSpec.bestEffort(weight);
        };
        return flow.withLimit(
                usageType == OsdUsageType.RANDOM ? share.limitIops() : share.limitThroughputBytesPerSecond());
    }

    @Override
    public long chargedBytes(long payloadBytes, boolean continuesStream) {
        return costRule.chargedBytes(payloadBytes, continuesStream);
    }

    @Override
    public long costOf(long payloadBytes) {
        return Math.min(FairQueue.COST_MAX, costRule.costOf(Math.max(0, payloadBytes)));
    }
}
