package org.xtreemfs.mrc.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * The DIR's online OSDs (status AVAILABLE), cached for {@code cacheTtlMs} so opens do not ask the DIR
 * each time. An empty cache is always refreshed. When the DIR cannot be reached, the last known list
 * is used (logged), so opens of already placed files keep working.
 */
public final class OsdDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(OsdDirectory.class);

    private record Snapshot(List<OsdCandidate> osds, long fetchedNanos) {}

    private final DirServiceClient dir;
    private final Clock clock;
    private final long cacheTtlNanos;
    private volatile Snapshot snapshot = new Snapshot(List.of(), Long.MIN_VALUE);

    public OsdDirectory(DirServiceClient dir, Clock clock, long cacheTtlMs) {
        this.dir = dir;
        this.clock = clock;
        this.cacheTtlNanos = cacheTtlMs * 1_000_000L;
    }

    public CompletableFuture<List<OsdCandidate>> current() {
        Snapshot cached = snapshot;
        long now = clock.monotonicNanos();
        if (!cached.osds().isEmpty() && cached.fetchedNanos() != Long.MIN_VALUE
                && now - cached.fetchedNanos() < cacheTtlNanos) {
            return CompletableFuture.completedFuture(cached.osds());
        }
        return dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false).handle((services, error) -> {
            if (error != null) {
                LOG.warn("cannot list OSDs at the DIR {}: {}; using {} cached OSDs", dir.address(), error.toString(),
                        cached.osds().size());
                return cached.osds();
            }
            List<OsdCandidate> online = new ArrayList<>();
            for (Service service : services.getServicesList()) {
                if (service.getType() == ServiceType.SERVICE_TYPE_OSD
                        && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE) {
                    online.add(OsdCandidate.of(service));
                }
            }
            snapshot = new Snapshot(List.copyOf(online), clock.monotonicNanos());
            return snapshot.osds();
        });
    }

    /** The last fetched list without asking the DIR (for the status page). */
    public List<OsdCandidate> cached() {
        return snapshot.osds();
    }
}
