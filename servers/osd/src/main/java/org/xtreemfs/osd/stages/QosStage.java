package org.xtreemfs.osd.stages;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.osd.metrics.VolumeAccounting;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.qos.device.WriteBackLevel;
import org.xtreemfs.qos.wfq.Decision;
import org.xtreemfs.qos.wfq.EnqueueResult;
import org.xtreemfs.qos.wfq.FlowRule;
import org.xtreemfs.qos.wfq.QueueingPolicy;
import org.xtreemfs.qos.wfq.StreamContinuity;
import org.xtreemfs.qos.wfq.StreamContinuity.Continuation;

/**
 * Decides the order in which authorized requests reach storage. Requests wait here, ordered by a
 * {@link QueueingPolicy} (the fair queue of servers/qos, or FIFO), each charged to its volume with the share
 * its capability carries, and are released only while fewer than {@code inFlightMax} are in storage: the
 * storage stage's own queues stay short, so the policy's order is the order the device sees.
 *
 * <p>No thread of its own: a request is released by the thread that makes its release possible — the
 * submitting (preprocessing) thread when a slot is free, the storage thread whose {@link #completed} frees
 * one, or the wake-up scheduler's thread when the policy answered "nothing now, ask again at t" (a limited
 * volume whose next request is not yet eligible). A dispatcher thread would add a wake-up to every request,
 * which on a busy machine costs more than the policy decision itself.
 *
 * <p>Invariants: the policy's bounds hold (more requests are rejected with OVERLOADED naming the bound); at
 * most {@code inFlightMax} are released and not yet {@link #completed}; no eligible request waits while a
 * slot is free (work-conserving), and while requests wait that are not yet eligible, a wake-up is scheduled
 * at the earliest time one becomes eligible, so no volume stalls; requests are handed to storage one at a time
 * under the lock, in the policy's order.
 *
 * <p>Accounting: every request entering, refused, released, answered or discarded is reported to a
 * {@link VolumeAccounting} with its volume, its cost and its reservation as {@code accountingRule} (this OSD's
 * {@code ShareRule}) computes them — the same rule the fair policy charges by, and also under FIFO, so both
 * policies are measured in the same unit. Latency runs from {@link #submit} to {@link #completed}.
 */
public final class QosStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QosStage.class);

    /** Guarded by {@link #lock}; replaced only by {@link #switchPolicy}. */
    private QueueingPolicy<AuthorizedRequest> policy;
    private final int inFlightMax;
    private final Clock clock;
    private final WakeUpScheduler wakeUps;
    private final Consumer<AuthorizedRequest> storage;
    private final Consumer<AuthorizedRequest> onDiscarded;
    private final FlowRule accountingRule;
    private final VolumeAccounting accounting;
    /** How full the device's host write-back is, told to the policy before each decision (empty: not seen). */
    private final Supplier<Optional<WriteBackLevel>> writeBackLevel;
    /** Files whose requests the stage tracks for continuity (see {@link #chargedBytes}); older ones are forgotten. */
    static final int STREAMS_TRACKED_MAX = 4096;

    /** When a queued or released request was submitted and the bytes it was charged as, fixed at submission. */
    private record Submitted(long nanos, long chargedBytes) {}

    /** The bytes a request is charged as, and how it related to its file's stream (null: not an object access). */
    private record Charge(long chargedBytes, Continuation continuation) {}

    /** Each queued or released request's submission; bounded by the queue bound + inFlightMax. */
    private final Map<AuthorizedRequest, Submitted> submitted = new IdentityHashMap<>();
    private final StreamContinuity continuity = new StreamContinuity(STREAMS_TRACKED_MAX);
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong admittedCount = new AtomicLong();
    private final AtomicLong rejectedCount = new AtomicLong();
    private final AtomicLong wakeUpCount = new AtomicLong();
    private int inFlight;
    /**
     * The policy's queue length as of the end of the last section under the lock that changed it (see
     * {@link #queueLength}): every read answer reports it, and reading it under the lock made each answer take the lock
     * the network thread's submissions and the workers' completions take.
     */
    private volatile int queuedCount;
    private boolean closed;
    /** True while {@link #releaseWhilePossible} runs; a completion from inside {@code storage} only counts. */
    private boolean releasing;
    /** The one pending wake-up (earliest "ask again at" time), or null; replaced only by an earlier one. */
    private WakeUpScheduler.Cancellable wakeUp;
    private long wakeUpAtNanos;

    /**
     * @param policy owns the queue bounds; only this stage calls it, under the stage's lock
     * @param clock its monotonic time is the policy's time
     * @param wakeUps schedules the stage's wake-ups for "ask again at t"
     * @param storage receives released requests, under this stage's lock, on the thread of {@link #submit},
     *     {@link #completed} or a wake-up; it must not block, and every released request must eventually be
     *     reported through {@link #completed} (it may do so from inside the call)
     * @param onDiscarded receives each request still waiting at {@link #close()} (the server fails its call)
     * @param accountingRule gives each request's cost and its volume's reservation for the accounting
     * @param accounting receives what each volume asks for and gets
     */
    public QosStage(QueueingPolicy<AuthorizedRequest> policy, int inFlightMax, Clock clock, WakeUpScheduler wakeUps,
            Consumer<AuthorizedRequest> storage, Consumer<AuthorizedRequest> onDiscarded, FlowRule accountingRule,
            VolumeAccounting accounting) {
        this(policy, inFlightMax, clock, wakeUps, storage, onDiscarded, accountingRule, accounting, Optional::empty);
    }

    /**
     * As above, with {@code writeBackLevel} giving how full the host's write-back in front of the device is (the
     * emulated device's model), which the stage tells the policy before each decision
     * ({@link QueueingPolicy#observeWriteBack}: the fair policy's pacing of buffered writes opens while the
     * write-back's flusher idles).
     */
    public QosStage(QueueingPolicy<AuthorizedRequest> policy, int inFlightMax, Clock clock, WakeUpScheduler wakeUps,
            Consumer<AuthorizedRequest> storage, Consumer<AuthorizedRequest> onDiscarded, FlowRule accountingRule,
            VolumeAccounting accounting, Supplier<Optional<WriteBackLevel>> writeBackLevel) {
        if (inFlightMax < 1) {
            throw new IllegalArgumentException("QoS stage needs inFlightMax >= 1, got " + inFlightMax);
        }
        this.policy = policy;
        this.inFlightMax = inFlightMax;
        this.clock = clock;
        this.wakeUps = wakeUps;
        this.storage = storage;
        this.onDiscarded = onDiscarded;
        this.accountingRule = accountingRule;
        this.accounting = accounting;
        this.writeBackLevel = writeBackLevel;
    }

    /** Queues a request under the policy; OVERLOADED naming the bound when the queue or the volume is full. */
    public void submit(AuthorizedRequest request) throws RpcException {
        lock.lock();
        try {
            if (closed) {
                throw RpcException.internal("OSD is shutting down: QoS stage closed");
            }
            long nowNanos = clock.monotonicNanos();
            Charge charge = charge(request);
            long chargedBytes = charge.chargedBytes();
            EnqueueResult result = policy.enqueue(request, request.volumeId(), request.share(), chargedBytes,
                    buffered(request), nowNanos);
            long reservationCostPerSecond = accountingRule.flowSpec(request.volumeId(), request.share())
                    .reservationCostPerSecond();
            long cost = accountingRule.costOf(chargedBytes);
            if (result instanceof EnqueueResult.Rejected rejected) {
                rejectedCount.incrementAndGet();
                accounting.refused(request.volumeId(), reservationCostPerSecond, nowNanos);
                throw RpcException.overloaded(overloadMessage(rejected));
            }
            admittedCount.incrementAndGet();
            accounting.enqueued(request.volumeId(), reservationCostPerSecond, cost, nowNanos);
            if (charge.continuation() != null) {
                accounting.objectAccess(request.volumeId(), chargedBytes > request.request().costBytes(),
                        charge.continuation() == Continuation.REORDERED, nowNanos);
            }
            submitted.put(request, new Submitted(nowNanos, chargedBytes));
            releaseWhilePossible();
        } finally {
            lock.unlock();
        }
    }

    private static String overloadMessage(EnqueueResult.Rejected rejected) {
        return switch (rejected.reason()) {
            case QUEUE_FULL -> "OSD QoS queue is full at " + rejected.boundRequests()
                    + " requests (osd.qos.queueCapacity); retry later";
            case FLOW_QUEUE_FULL -> "OSD QoS queue already holds " + rejected.boundRequests() + " requests of volume "
                    + rejected.flowId() + " (osd.qos.volumeQueueCapacity); retry later";
            case UNKNOWN_FLOW -> "OSD QoS queue refused volume " + rejected.flowId() + ": " + rejected.message();
        };
    }

    /**
     * The bytes a request is charged as, decided once at submission in arrival order: its payload, plus on a
     * byte-charged OSD a positioning when an object read or write does not continue its file's stream on this OSD
     * ({@code CostRule.Bytes}; {@link StreamContinuity}: it continues at the previous end or permuted within the
     * stream's reorder window, as requests in flight arrive, and the emulated device forgives by the same rule).
     * Offsets are the file's local objects on this OSD laid end to end (as the device stores them), so a striped
     * file's stream continues across its objects here.
     */
    private Charge charge(AuthorizedRequest request) {
        long payloadBytes = request.request().costBytes();
        if (!(request.request() instanceof OsdRequest.ObjectAccess access)) {
            return new Charge(payloadBytes, null);
        }
        long localOffsetBytes = request.layout().localObjectIndex(access.objectNumber())
                * request.layout().objectSizeBytes() + access.offset();
        Continuation continuation = continuity.arrive(request.fileId(), localOffsetBytes, payloadBytes);
        return new Charge(accountingRule.chargedBytes(payloadBytes, continuation.continuesStream()),
                continuation);
    }

    /** An unsynced write: the host's write-back acknowledges it from memory (the fair policy may pace it). */
    private static boolean buffered(AuthorizedRequest request) {
        return request.request() instanceof OsdRequest.WriteObject && !request.isSyncedWrite();
    }

    /** The cost a request was charged at submission ({@code at}: its entry, null if unknown), for the accounting. */
    private long costOf(AuthorizedRequest request, Submitted at) {
        return accountingRule.costOf(at == null ? request.request().costBytes() : at.chargedBytes());
    }
    /**
     * A released request was answered (with its result or an error): frees its slot and releases the next
     * waiting request, if any.
     */
    public void completed(AuthorizedRequest request) {
        lock.lock();
        try {
            if (inFlight <= 0) {
                throw new IllegalStateException("QoS stage: more completions than released requests");
            }
            inFlight--;
            answered(request);
            releaseWhilePossible();
        } finally {
            lock.unlock();
        }
    }

    /** A scheduled wake-up: the time the policy named has come. */
    private void wakeUp(long atNanos) {
        lock.lock();
        try {
            if (wakeUp != null && wakeUpAtNanos == atNanos) {
                wakeUp = null;
            }
            wakeUpCount.incrementAndGet();
            releaseWhilePossible();
        } finally {
            lock.unlock();
        }
    }

    /** Called with the lock held. */
    private void releaseWhilePossible() {
        if (releasing) {
            return; // a completion reported from inside storage.accept; the outer loop goes on
        }
        releasing = true;
        try {
            while (!closed && inFlight < inFlightMax) {
                // No lambda here: a capturing one was allocated per decision.
                Optional<WriteBackLevel> level = writeBackLevel.get();
                if (level.isPresent()) {
                    policy.observeWriteBack(level.get().dirtyBytes(), level.get().backgroundBytes());
                }
                Decision<AuthorizedRequest> decision = policy.next(clock.monotonicNanos());
                if (decision instanceof Decision.Dispatch<AuthorizedRequest> dispatch) {
                    release(dispatch.request());
                } else {
                    if (decision instanceof Decision.WaitUntil<AuthorizedRequest> wait) {
                        scheduleWakeUp(wait.eligibleNanos());
                    }
                    return;
                }
            }
        } finally {
            releasing = false;
            queuedCount = policy.size();
        }
    }

    private void release(AuthorizedRequest next) {
        inFlight++;
        accounting.released(next.volumeId(), costOf(next, submitted.get(next)), clock.monotonicNanos());
        try {
            storage.accept(next);
        } catch (RuntimeException e) {
            LOG.error("QoS stage: storage refused a released request", e);
            next.request().call().fail(RpcException.internal("storage refused the request: " + e));
            inFlight--;
            answered(next);
        }
    }

    /** Called with the lock held: the accounting's record of an answered request. */
    private void answered(AuthorizedRequest request) {
        long nowNanos = clock.monotonicNanos();
        Submitted at = submitted.remove(request);
        accounting.completed(request.volumeId(), costOf(request, at), request.request().costBytes(),
                at == null ? 0 : nowNanos - at.nanos(), nowNanos);
    }

    /** Keeps one wake-up, at the earliest time asked for; a later request for a later time changes nothing. */
    private void scheduleWakeUp(long atNanos) {
        if (wakeUp != null && wakeUpAtNanos <= atNanos) {
            return;
        }
        if (wakeUp != null) {
            wakeUp.cancel();
        }
        wakeUpAtNanos = atNanos;
        wakeUp = wakeUps.schedule(atNanos, () -> wakeUp(atNanos));
    }

    /**
     * Requests waiting in the policy, as of the last submission, completion, wake-up, switch or close (each ends by
     * releasing what it can, which records the length); without taking the lock.
     */
    public int queueLength() {
        return queuedCount;
    }

    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    public long admittedCount() {
        return admittedCount.get();
    }

    public long rejectedCount() {
        return rejectedCount.get();
    }

    /** Scheduled wake-ups that ran (a limited volume's request became eligible with no other event). */
    public long wakeUpCount() {
        return wakeUpCount.get();
    }

    public VolumeAccounting accounting() {
        return accounting;
    }

    /**
     * Runs {@code next} from now on (the OSD's run-time policy switch, for measuring one policy against another on
     * the same cluster and load). The requests waiting in the old policy move into the new one in the order they
     * were submitted, with the charge they were given at submission; one the new policy's bounds refuse is failed
     * with OVERLOADED naming the bound, as at submission. Requests in storage are unaffected (they complete through
     * {@link #completed} as before). The old policy's tags and pacing are dropped: the new one starts every volume
     * afresh, as after an idle period.
     *
     * @return the number of requests that moved
     */
    public int switchPolicy(QueueingPolicy<AuthorizedRequest> next) {
        java.util.Objects.requireNonNull(next, "next");
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("OSD is shutting down: QoS stage closed");
            }
            java.util.List<AuthorizedRequest> waiting = new java.util.ArrayList<>(policy.removeAll());
            waiting.sort(java.util.Comparator.comparingLong(request -> submitted.get(request).nanos()));
            policy = next;
            long nowNanos = clock.monotonicNanos();
            int moved = 0;
            for (AuthorizedRequest request : waiting) {
                Submitted at = submitted.get(request);
                EnqueueResult result = policy.enqueue(request, request.volumeId(), request.share(), at.chargedBytes(),
                        buffered(request), nowNanos);
                if (result instanceof EnqueueResult.Rejected rejected) {
                    rejectedCount.incrementAndGet();
                    accounting.discarded(request.volumeId(), costOf(request, submitted.remove(request)), nowNanos);
                    request.request().call().fail(RpcException.overloaded(overloadMessage(rejected)));
                } else {
                    moved++;
                }
            }
            releaseWhilePossible();
            return moved;
        } finally {
            lock.unlock();
        }
    }

    /** Stops dispatching and hands every waiting request to {@code onDiscarded}. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (wakeUp != null) {
                wakeUp.cancel();
                wakeUp = null;
            }
            long nowNanos = clock.monotonicNanos();
            RuntimeException firstFailure = null;
            for (AuthorizedRequest waiting : policy.removeAll()) {
                accounting.discarded(waiting.volumeId(), costOf(waiting, submitted.remove(waiting)), nowNanos);
                try {
                    onDiscarded.accept(waiting);
                } catch (RuntimeException e) {
                    // Failing one call (its connection's event loop already shut down, say) must not leave the
                    // others undiscarded: every waiting request is handed over, the first failure logged.
                    if (firstFailure == null) {
                        firstFailure = e;
                    }
                }
            }
            queuedCount = policy.size();
            if (firstFailure != null) {
                LOG.warn("QoS stage: failing a waiting request at close failed (connection already closed?): {}",
                        firstFailure.toString());
            }
        } finally {
            lock.unlock();
        }
    }
}
