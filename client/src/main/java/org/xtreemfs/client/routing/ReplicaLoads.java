package org.xtreemfs.client.routing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The load each OSD reported with its last read answer (ReadResponse.queued_requests: requests waiting in its QoS
 * stage; ReadResponse.write_back_dirty_bytes: its device's write-back to flush), shared by a client's open files. A
 * report older than {@link #REPORT_MAX_AGE_MS} counts as idle: the OSD has had that long to drain its queue (a few
 * requests of an HDD's 10-25 ms each), and an idle replica is the one that steals a read, whose answer then brings a fresh report (so a replica nobody reads from is probed when
 * another is loaded, never asked apart, and a replica whose reads were all stolen is tried again soon).
 * Bounded: the least recently reported OSDs are forgotten beyond {@link #OSDS_MAX}. Thread-safe.
 */
public final class ReplicaLoads {
    public static final long REPORT_MAX_AGE_MS = 200;
    public static final int OSDS_MAX = 4_096;

    /** One OSD's reported load. */
    public record Load(int queuedRequests, long writeBackDirtyBytes) {
        public static final Load IDLE = new Load(0, 0);
    }

    private record Report(Load load, long atMs) {}

    private final LongSupplier clockMs;
    private final LinkedHashMap<String, Report> reports = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Report> eldest) {
            return size() > OSDS_MAX;
        }
    };

    /** @param clockMs a monotonic millisecond clock */
    public ReplicaLoads(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** Negative figures (a malformed report) count as 0. */
    public synchronized void reported(String osdUuid, int queuedRequests, long writeBackDirtyBytes) {
        reports.put(osdUuid, new Report(new Load(Math.max(0, queuedRequests), Math.max(0, writeBackDirtyBytes)),
                clockMs.getAsLong()));
    }

    /** The OSD's last load if reported within {@link #REPORT_MAX_AGE_MS}; {@link Load#IDLE} otherwise. */
    public synchronized Load load(String osdUuid) {
        Report report = reports.get(osdUuid);
        return report == null || clockMs.getAsLong() - report.atMs() > REPORT_MAX_AGE_MS ? Load.IDLE : report.load();
    }
}
