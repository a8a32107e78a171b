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
 * Which replicated files' XLoc this OSD has confirmed at the MRC: the gate between preprocessing and the QoS stage
 * that keeps a returning OSD from serving a stale copy (servers/osd README, "Chain replication", "Failure and
 * re-formation"). Whether a request's XLoc version is current is decided in one place, {@link XLocVersions}, on the
 * file's storage lane; this gate only feeds it the MRC's version where this OSD may have missed a re-formation.
 *
 * <p>Rules, per replicated file (unreplicated files pass untouched): the first request of a file after this OSD
 * started, after a heartbeat gap (no heartbeat accepted by the DIR for {@code doubtAfterMs}: the DIR may have declared
 * this OSD dead and the MRC removed it meanwhile), or after the file was forgotten here, waits until the MRC confirmed
 * the file's current XLoc ({@link XLocSource}); its version is then recorded in {@link XLocVersions} (raised, stored),
 * and the waiting requests go on, in order, each through {@link XLocVersions#check} (as every request it passes: lock
 * requests never reach a storage lane). A request whose XLoc names this OSD after the MRC re-formed the chain without
 * it carries an older version than the MRC's, so it is refused XLOC_OUTDATED: an OSD that comes back after it was
 * removed from a chain never serves its stale copy, even to a client that still holds the old XLoc.
 * Bounded: at most {@code filesMax} files are remembered as confirmed (least recently used ones are forgotten, which
 * only costs a new confirmation) and {@code waitingMax} requests wait per file (more are OVERLOADED).
 */
public final class XLocConfirmations {
    /** Where the current XLoc of a file comes from (the MRC, MRC_REPLICA_FAILED without an OSD). */
    @FunctionalInterface
    public interface XLocSource {
        CompletableFuture<XLocSet> current(AuthorizedRequest request);
    }

    /** NEW: nothing asked yet; CONFIRMING: asking the MRC; DRAINING: releasing who waited; CONFIRMED: open. */
    private enum State { NEW, CONFIRMING, DRAINING, CONFIRMED }

    private static final class View {
        State state = State.NEW;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    }

    private record Waiting(AuthorizedRequest request, PreprocessingStage.Next next) {}

    private final String ownUuid;
    private final XLocSource source;
    private final XLocVersions versions;
    private final LongSupplier monotonicNanos;
    private final BiConsumer<AuthorizedRequest, RpcException> failer;
    private final long doubtAfterNanos;
    private final int waitingMax;
    private final Map<String, View> views;
    private long lastHeartbeatNanos;
    private final AtomicLong confirmations = new AtomicLong();

    /**
     * @param versions the one record of each file's current XLoc version, which a confirmation raises
     * @param failer answers a request that waited for a confirmation with an error (its call's {@code fail})
     * @param doubtAfterMs heartbeat silence after which every file is confirmed again
     */
    public XLocConfirmations(String ownUuid, XLocSource source, XLocVersions versions, LongSupplier monotonicNanos,
            BiConsumer<AuthorizedRequest, RpcException> failer, long doubtAfterMs, int filesMax, int waitingMax) {
        this.ownUuid = ownUuid;
        this.source = source;
        this.versions = versions;
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
            if (!passes) {
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
            checkThenHandOn(request, next);
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

    /** The MRC answered the file's current XLoc (or failed): record it, then release who waited, in order. */
    private void confirmed(String fileId, XLocSet xlocs, Throwable error) {
        String problem = null;
        if (error == null) {
            try {
                ReplicaChain.of(xlocs); // a malformed answer is not recorded
                versions.confirmed(fileId, xlocs.getVersion());
            } catch (RuntimeException malformedOrUnstored) {
                problem = malformedOrUnstored.toString();
            }
        } else {
            problem = String.valueOf(cause(error).getMessage());
        }
        View view;
        List<Waiting> failed = new ArrayList<>();
        synchronized (this) {
            view = views.get(fileId);
            if (problem == null) {
                view.state = State.DRAINING;
                confirmations.incrementAndGet();
            } else {
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
                    checkThenHandOn(waiting.request(), waiting.next());
                } catch (RpcException refusal) {
                    failer.accept(waiting.request(), refusal);
                } catch (RuntimeException bug) {
                    failer.accept(waiting.request(), RpcException.internal("OSD " + ownUuid
                            + " failed a request of file " + fileId + " after confirming its XLoc: " + bug));
                }
            }
        }
    }

    /**
     * XLocVersions' check here too, before the QoS stage: lock requests never reach a storage lane, and an outdated
     * request refused early costs no queueing. The storage lane checks again (the order that matters for updates).
     */
    private void checkThenHandOn(AuthorizedRequest request, PreprocessingStage.Next next) throws RpcException {
        versions.check(request.fileId(), request.request().credentials().getXlocs().getVersion(),
                request.request().getClass());
        next.accept(request);
    }

    /** After a heartbeat gap every confirmation is doubtful: the MRC may have removed this OSD meanwhile. */
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
