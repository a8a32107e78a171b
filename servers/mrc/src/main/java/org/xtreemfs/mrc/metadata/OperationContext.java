package org.xtreemfs.mrc.metadata;

import java.util.List;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * The nondeterministic inputs of one metadata operation, gathered by its {@code prepare} step: who
 * asks, the wall-clock time the operation stamps on inodes, and (for operations that place files or
 * report space) the DIR's online OSDs, for admissions every OSD with its profile, and a fresh random id
 * for operations that create a volume.
 * Applying an operation to the store is a deterministic function of this context and the store.
 */
public record OperationContext(Caller caller, long nowNanos, List<OsdCandidate> osds, String generatedId,
        List<OsdReport> osdReports) {
    public OperationContext {
        osds = osds == null ? List.of() : List.copyOf(osds);
        generatedId = generatedId == null ? "" : generatedId;
        osdReports = osdReports == null ? List.of() : List.copyOf(osdReports);
    }

    public static OperationContext of(Caller caller, long wallClockMillis) {
        return new OperationContext(caller, wallClockMillis * 1_000_000L, List.of(), "", List.of());
    }

    public OperationContext withOsds(List<OsdCandidate> candidates) {
        return new OperationContext(caller, nowNanos, candidates, generatedId, osdReports);
    }

    public OperationContext withGeneratedId(String id) {
        return new OperationContext(caller, nowNanos, osds, id, osdReports);
    }

    /** Every OSD the DIR knows, dead ones included, with its profile: what an admission decides against. */
    public OperationContext withOsdReports(List<OsdReport> reports) {
        return new OperationContext(caller, nowNanos, osds, generatedId, reports);
    }
}
