package org.xtreemfs.qos.wfq;

import java.util.Objects;

/**
 * Scheduling parameters of one flow. Rates are in the queue's cost unit per second (bytes on sequential OSDs,
 * 4 KiB-equivalent I/Os on random OSDs; see {@link CostRule}); all flows of one queue must use the same unit.
 *
 * @param reservationCostPerSecond guaranteed rate; > 0 exactly for RESERVED flows
 * @param weight relative share of spare capacity, >= 1
 * @param limitCostPerSecond cap on the flow's rate, 0 for none; if set it is >= the reservation
 */
public record FlowSpec(FlowClass flowClass, long reservationCostPerSecond, long weight, long limitCostPerSecond) {
    public FlowSpec {
        Objects.requireNonNull(flowClass, "flowClass");
        if (flowClass == FlowClass.RESERVED && reservationCostPerSecond <= 0) {
            throw new IllegalArgumentException("reservationCostPerSecond must be > 0 for a RESERVED flow, was "
                    + reservationCostPerSecond);
        }
        if (flowClass != FlowClass.RESERVED && reservationCostPerSecond != 0) {
            throw new IllegalArgumentException("reservationCostPerSecond must be 0 for a " + flowClass
                    + " flow, was " + reservationCostPerSecond);
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be >= 1, was " + weight);
        }
        if (limitCostPerSecond < 0 || (limitCostPerSecond > 0 && limitCostPerSecond < reservationCostPerSecond)) {
            throw new IllegalArgumentException("limitCostPerSecond must be 0 (none) or >= reservationCostPerSecond, "
                    + "was " + limitCostPerSecond);
        }
    }

    public static FlowSpec reserved(long reservationCostPerSecond, long weight) {
        return new FlowSpec(FlowClass.RESERVED, reservationCostPerSecond, weight, 0);
    }

    /**
     * The spec of most volumes (best-effort, weight 1), made once: the fair policy derives a volume's spec on every
     * request, and a shared one spares an allocation (and the constructor's checks) each time.
     */
    private static final FlowSpec BEST_EFFORT_WEIGHT_1 = new FlowSpec(FlowClass.BEST_EFFORT, 0, 1, 0);

    public static FlowSpec bestEffort(long weight) {
        return weight == 1 ? BEST_EFFORT_WEIGHT_1 : new FlowSpec(FlowClass.BEST_EFFORT, 0, weight, 0);
    }

    public static FlowSpec cold(long weight) {
        return new FlowSpec(FlowClass.COLD, 0, weight, 0);
    }

    /** This spec with the limit; itself when the limit is already that (no allocation on every request). */
    public FlowSpec withLimit(long limitCostPerSecond) {
        if (limitCostPerSecond == this.limitCostPerSecond) {
            return this;
        }
        return new FlowSpec(flowClass, reservationCostPerSecond, weight, limitCostPerSecond);
    }

    public boolean limited() {
        return limitCostPerSecond > 0;
    }

    /*
     * Written out rather than the record's generated equals: the fair policy compares a volume's spec on every
     * request, and the generated one goes through an invokedynamic method-handle chain that C1, the OSD's only
     * JIT until session 13 and its first tier since (bin/xtreemfs-osd), does not inline.
     */
    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof FlowSpec spec && flowClass == spec.flowClass
                && reservationCostPerSecond == spec.reservationCostPerSecond && weight == spec.weight
                && limitCostPerSecond == spec.limitCostPerSecond;
    }

    @Override
    public int hashCode() {
        return Objects.hash(flowClass, reservationCostPerSecond, weight, limitCostPerSecond);
    }
}
