package org.xtreemfs.mrc.metadata;

import java.util.List;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * The nondeterministic inputs of one metadata operation, gathered by its {@code prepare} step: who
 * asks, the wall-clock time the operation stamps on inodes, and (for operations that place files or
 * report space) the DIR's online OSDs, and a fresh random id for operations that create a volume.
 * Applying an operation to the store is a deterministic function of this context and the store.
 */
public record OperationContext(Caller caller, long nowNanos, List<OsdCandidate> osds, String generatedId) {
    public OperationContext {
        osds = osds == null ? List.of() : List.copyOf(osds);
        generatedId = generatedId == null ? "" : generatedId;
    }

    public static OperationContext of(Caller caller, long wallClockMillis) {
        return new OperationContext(caller, wallClockMillis * 1_000_000L, List.of(), "");
    }

    public OperationContext withOsds(List<OsdCandidate> candidates) {
        return new OperationContext(caller, nowNanos, candidates, generatedId);
    }

    public OperationContext withGeneratedId(String id) {
        return new OperationContext(caller, nowNanos, osds, id);
    }
}
