package org.xtreemfs.mrc.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * The DIR's online OSDs (status AVAILABLE), cached so opens do not wait for the DIR. A known list is
 * returned at once; when it is older than {@code cacheTtlMs}, or a placement found it too short
 * ({@link #placementFailed}), one background refresh starts. Only an empty cache makes the caller wait for the
 * DIR. When the DIR cannot be reached the last known list stays in use (logged), so opens of already placed
 * files keep working.
 */
public final class OsdDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(OsdDirectory.class);

    private record Snapshot(List<OsdCandidate> osds, List<Service> services, long fetchedNanos) {}

    private final DirServiceClient dir;
    private final Clock clock;
    private final long cacheTtlNanos;
    private final AtomicReference<CompletableFuture<List<OsdCandidate>>> refreshing = new AtomicReference<>();
    private volatile Snapshot snapshot;
    /** Set by {@link #placementFailed}: the next {@link #current} refreshes whatever the list's age. */
    private volatile boolean stale;

    public OsdDirectory(DirServiceClient dir, Clock clock, long cacheTtlMs) {
        this.dir = dir;
        this.clock = clock;
        this.cacheTtlNanos = cacheTtlMs * 1_000_000L;
    }

    public CompletableFuture<List<OsdCandidate>> current() {
        Snapshot cached = snapshot;
        if (cached == null || cached.osds().isEmpty()) {
            return refresh();
        }
        if (stale || clock.monotonicNanos() - cached.fetchedNanos() >= cacheTtlNanos) {
            refresh();
        }
        return CompletableFuture.completedFuture(cached.osds());
    }

    /**
     * A placement found too few OSDs in the list {@link #current} gave (ENOSPC for that create): the next call
     * refreshes it at once instead of after the TTL, so an OSD that registered meanwhile is used by the next create
     * rather than a TTL later. Why: with a TTL of a second rather than the launcher's former 100 ms (a DIR call
     * every 100 ms while creates come, 8-12 % of the MRC's samples in loaded A/Bs; tests/bench/fuse/README.md,
     * session 16) a cluster whose OSDs were still registering would otherwise refuse creates for up to a second.
     */
    public void placementFailed() {
        stale = true;
    }

    /** Asks the DIR, at most one request at a time; completes with the new (or, on failure, last) list. */
    public CompletableFuture<List<OsdCandidate>> refresh() {
        CompletableFuture<List<OsdCandidate>> mine = new CompletableFuture<>();
        CompletableFuture<List<OsdCandidate>> running = refreshing.compareAndExchange(null, mine);
        if (running != null) {
            return running;
        }
        stale = false; // before the DIR call: a placement failing meanwhile asks for one more refresh
        dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false).whenComplete((services, error) -> {
            List<OsdCandidate> result;
            if (error != null) {
                result = cached();
                LOG.warn("cannot list OSDs at the DIR {}: {}; using {} cached OSDs", dir.address(), error.toString(),
                        result.size());
            } else {
                List<OsdCandidate> online = new ArrayList<>();
                List<Service> onlineServices = new ArrayList<>();
                for (Service service : services.getServicesList()) {
                    if (service.getType() == ServiceType.SERVICE_TYPE_OSD
                            && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE) {
                        online.add(OsdCandidate.of(service));
                        onlineServices.add(service);
                    }
                }
                result = List.copyOf(online);
                snapshot = new Snapshot(result, List.copyOf(onlineServices), clock.monotonicNanos());
            }
            refreshing.set(null);
            mine.complete(result);
        });
        return mine;
    }

    /** The last fetched list without asking the DIR (for the status page). */
    public List<OsdCandidate> cached() {
        Snapshot cached = snapshot;
        return cached == null ? List.of() : cached.osds();
    }

    /**
     * The online OSDs as the DIR last listed them, with every attribute of their heartbeat (the per-volume
     * attainment the status page sums); no DIR call, but a stale list starts one background refresh, as
     * {@link #current} does, so a page read now and then shows figures at most one cache TTL older.
     */
    public List<Service> cachedServices() {
        current();
        Snapshot cached = snapshot;
        return cached == null ? List.of() : cached.services();
    }

    /** The AVAILABLE OSDs of a listing such as {@link #allForAdmission}'s, as placement candidates. */
    public static List<OsdCandidate> available(List<Service> services) {
        return services.stream().filter(osd -> osd.getType() == ServiceType.SERVICE_TYPE_OSD
                && osd.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE).map(OsdCandidate::of).toList();
    }

    /**
     * Every OSD the DIR knows, dead ones included, fresh from the DIR (not cached): what an admission decides
     * against. Admissions are rare and must see each OSD's latest profile and liveness; a DIR that cannot be
     * reached fails the admission rather than deciding on stale data.
     */
    public CompletableFuture<List<Service>> allForAdmission() {
        return dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, true).thenApply(ServiceSet::getServicesList);
    }
}
