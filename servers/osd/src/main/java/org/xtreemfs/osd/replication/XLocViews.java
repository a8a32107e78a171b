package org.xtreemfs.osd.replication;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.osd.stages.PreprocessingStage;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.ReplicaRole;

/**
 * This OSD's view of each replicated file's XLoc version: the gate between preprocessing and the QoS stage that
 * keeps a re-formed chain consistent (servers/osd README, "Chain replication", "Failure and re-formation").
 *
 * <p>Rules, per replicated file (unreplicated files pass untouched):
 * <ul>
 * <li>a request whose XLoc version is older than the newest this OSD has seen for the file is refused with
 * XLOC_OUTDATED: its sender holds a chain the MRC has re-formed since (clients fetch the current XLoc and
 * retry); a newer version is adopted;</li>
 * <li>the first request of a file after this OSD started, after a heartbeat gap (no heartbeat accepted by the
 * DIR for {@code doubtAfterMs}: the DIR may have declared this OSD dead and the MRC removed it meanwhile), or
 * after the view was evicted, waits until the MRC confirmed the file's current XLoc ({@link XLocSource}); if
 * that XLoc no longer names this OSD, every request carrying an XLoc that names it is XLOC_OUTDATED. So an
 * OSD that comes back after it was removed from a chain never serves its stale copy, even to a client that
 * still holds the old XLoc. Requests of a file that wait for the confirmation keep their order.</li>
 * </ul>
 * Bounded: at most {@code filesMax} views (least recently used ones are forgotten, which only costs a new
 * confirmation) and {@code waitingMax} requests waiting per file (more are OVERLOADED).
 */
public final class XLocViews {
    /** Where the current XLoc of a file comes from (the MRC, MRC_REPLICA_FAILED without an OSD). */
    @FunctionalInterface
    public interface XLocSource {
        CompletableFuture<XLocSet> current(AuthorizedRequest request);
    }

    /** NEW: nothing asked yet; CONFIRMING: asking the MRC; DRAINING: releasing who waited; CONFIRMED: open. */
    private enum State { NEW, CONFIRMING, DRAINING, CONFIRMED }

    private static final class View {
        State state = State.NEW;
        /** The newest XLoc version seen for the file (confirmed by the MRC, or carried by an accepted request). */
        int version;
        /** The MRC's XLoc of {@link #version} does not name this OSD. */
        boolean removed;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    }

    private record Waiting(AuthorizedRequest request, PreprocessingStage.Next next) {}

    private final String ownUuid;
    private final XLocSource source;
    private final LongSupplier monotonicNanos;
    private final BiConsumer<AuthorizedRequest, RpcException> failer;
    private final long doubtAfterNanos;
    private final int waitingMax;
    private final Map<String, View> views;
    private long lastHeartbeatNanos;
    private final AtomicLong confirmations = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param failer answers a request that waited for a confirmation with an error (its call's {@code fail})
     * @param doubtAfterMs heartbeat silence after which every view is confirmed again
     */
    public XLocViews(String ownUuid, XLocSource source, LongSupplier monotonicNanos,
            BiConsumer<AuthorizedRequest, RpcException> failer, long doubtAfterMs, int filesMax, int waitingMax) {
        this.ownUuid = ownUuid;
        this.source = source;
        this.monotonicNanos = monotonicNanos;
        this.failer = failer;
        this.doubtAfterNanos = doubtAfterMs * 1_000_000L;
        this.waitingMax = waitingMax;
        this.lastHeartbeatNanos = monotonicNanos.getAsLong();
        this.views = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, View> eldest) {
                return size() > filesMax && eldest.getValue().state == State.CONFIRMED;
            }
        };
    }

    /** {@code next} behind this gate. */
    public PreprocessingStage.Next gate(PreprocessingStage.Next next) {
        return request -> accept(request, next);
    }

    /** The DIR accepted a heartbeat of this OSD now. */
    public synchronized void heartbeatAccepted() {
        doubtIfSilentTooLong();
        lastHeartbeatNanos = monotonicNanos.getAsLong();
    }

    /** How many XLocs were confirmed at the MRC. */
    public long confirmations() {
        return confirmations.get();
    }

    /** How many requests were refused as XLOC_OUTDATED. */
    public long refused() {
        return refused.get();
    }

    private void accept(AuthorizedRequest request, PreprocessingStage.Next next) throws RpcException {
        if (request.chain().role() == ReplicaRole.SOLE) {
            next.accept(request);
            return;
        }
        boolean passes;
        boolean startConfirmation = false;
        synchronized (this) {
            doubtIfSilentTooLong();
            View view = views.computeIfAbsent(request.fileId(), fileId -> new View());
            passes = view.state == State.CONFIRMED;
            if (passes) {
                check(view, request);
            } else {
                if (view.waiting.size() >= waitingMax) {
                    throw RpcException.overloaded("OSD " + ownUuid + ": " + waitingMax + " requests of file "
                            + request.fileId() + " already wait for its XLoc to be confirmed at the MRC; retry later");
                }
                view.waiting.add(new Waiting(request, next));
                if (view.state == State.NEW) {
                    view.state = State.CONFIRMING;
                    startConfirmation = true;
                }
            }
        }
        if (passes) {
            // Handed on outside the monitor; one connection's requests (a predecessor's forwards) stay in order.
            next.accept(request);
            return;
        }
        if (startConfirmation) {
            String fileId = request.fileId();
            CompletableFuture<XLocSet> current;
            try {
                current = source.current(request);
            } catch (RuntimeException e) {
                current = CompletableFuture.failedFuture(e);
            }
            current.whenComplete((xlocs, error) -> confirmed(fileId, xlocs, error));
        }
    }

    /** The MRC answered the file's current XLoc (or failed): settle the view, then release who waited, in order. */
    private void confirmed(String fileId, XLocSet xlocs, Throwable error) {
        View view;
        List<Waiting> failed = new ArrayList<>();
        String problem = null;
        synchronized (this) {
            view = views.get(fileId);
            if (error == null) {
                try {
                    view.removed = ReplicaChain.of(xlocs).member(ownUuid).isEmpty();
                    view.version = Math.max(view.version, xlocs.getVersion());
                    view.state = State.DRAINING;
                    confirmations.incrementAndGet();
                } catch (IllegalArgumentException malformed) {
                    problem = malformed.getMessage();
                }
            } else {
                problem = cause(error).getMessage();
            }
            if (problem != null) {
                failed.addAll(view.waiting);
                view.waiting.clear();
                views.remove(fileId);
            }
        }
        for (Waiting waiting : failed) {
            failer.accept(waiting.request(), RpcException.overloaded("OSD " + ownUuid + " cannot confirm the"
                    + " XLoc of file " + fileId + " at the MRC (" + problem + "); retry later"));
        }
        if (problem != null) {
            return;
        }
        while (true) {
            List<Waiting> batch;
            synchronized (this) {
                if (view.waiting.isEmpty()) {
                    view.state = State.CONFIRMED;
                    return;
                }
                batch = new ArrayList<>(view.waiting);
                view.waiting.clear();
            }
            for (Waiting waiting : batch) {
                try {
                    synchronized (this) {
                        check(view, waiting.request());
                    }
                    waiting.next().accept(waiting.request());
                } catch (RpcException refusal) {
                    failer.accept(waiting.request(), refusal);
                } catch (RuntimeException bug) {
                    failer.accept(waiting.request(), RpcException.internal("OSD " + ownUuid
                            + " failed a request of file " + fileId + " after confirming its XLoc: " + bug));
                }
            }
        }
    }

    /** Refuses a request whose XLoc is older than the view, or names this OSD after the MRC removed it. */
    private void check(View view, AuthorizedRequest request) throws RpcException {
        int version = request.request().credentials().getXlocs().getVersion();
        if (view.removed && version <= view.version) {
            refused.incrementAndGet();
            throw RpcException.xlocOutdated("OSD " + ownUuid + " is no longer in the chain of file " + request.fileId()
                    + ": the MRC's XLoc version " + view.version + " does not name it (the request carries version "
                    + version + "); fetch the current XLoc");
        }
        if (version < view.version) {
            refused.incrementAndGet();
            throw RpcException.xlocOutdated("the request for file " + request.fileId() + " carries XLoc version "
                    + version + ", older than version " + view.version + " OSD " + ownUuid
                    + " has seen: its chain was re-formed; fetch the current XLoc");
        }
        if (version > view.version) {
            view.version = version;
            view.removed = false;
        }
    }

    /** After a heartbeat gap every view is doubtful: the MRC may have removed this OSD meanwhile. */
    private void doubtIfSilentTooLong() {
        if (monotonicNanos.getAsLong() - lastHeartbeatNanos > doubtAfterNanos) {
            views.values().removeIf(view -> view.state == State.CONFIRMED);
            lastHeartbeatNanos = monotonicNanos.getAsLong();
        }
    }

    private static Throwable cause(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
