package org.xtreemfs.osd.stages;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;

/**
 * Decides the order in which authorized requests reach storage. Requests wait here, ordered by a
 * {@link QueueingPolicy}, and are released only while fewer than {@code inFlightMax} are in storage: the
 * storage stage's own queues stay short, so the policy's order is the order the device sees.
 *
 * <p>No thread of its own: a request is released by the thread that makes its release possible — the
 * submitting (preprocessing) thread when a slot is free, else the storage thread whose {@link #completed}
 * frees one. A dispatcher thread would add a wake-up to every request, which on a busy machine costs more
 * than the policy decision itself.
 *
 * <p>Invariants: at most {@code queueCapacity} requests wait (more are rejected with OVERLOADED naming the
 * bound); at most {@code inFlightMax} are released and not yet {@link #completed}; no request waits while
 * a slot is free (work-conserving); requests are handed to storage one at a time under the lock, in the
 * policy's order.
 */
public final class QosStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QosStage.class);

    private final QueueingPolicy<AuthorizedRequest> policy;
    private final int queueCapacity;
    private final int inFlightMax;
    private final Consumer<AuthorizedRequest> storage;
    private final Consumer<AuthorizedRequest> onDiscarded;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong admittedCount = new AtomicLong();
    private final AtomicLong rejectedCount = new AtomicLong();
    private int inFlight;
    private boolean closed;
    /** True while {@link #releaseWhilePossible} runs; a completion from inside {@code storage} only counts. */
    private boolean releasing;

    /**
     * @param storage receives released requests, under this stage's lock, on the thread of {@link #submit}
     *     or {@link #completed}; it must not block, and every released request must eventually be reported
     *     through {@link #completed()} (it may do so from inside the call)
     * @param onDiscarded receives each request still waiting at {@link #close()} (the server fails its call)
     */
    public QosStage(QueueingPolicy<AuthorizedRequest> policy, int queueCapacity, int inFlightMax,
            Consumer<AuthorizedRequest> storage, Consumer<AuthorizedRequest> onDiscarded) {
        if (queueCapacity < 1 || inFlightMax < 1) {
            throw new IllegalArgumentException("QoS stage needs queueCapacity >= 1 and inFlightMax >= 1, got "
                    + queueCapacity + " and " + inFlightMax);
        }
        this.policy = policy;
        this.queueCapacity = queueCapacity;
        this.inFlightMax = inFlightMax;
        this.storage = storage;
        this.onDiscarded = onDiscarded;
    }

    /** Queues a request under the policy; OVERLOADED naming the bound when {@code queueCapacity} wait. */
    public void submit(AuthorizedRequest request) throws RpcException {
        lock.lock();
        try {
            if (closed) {
                throw RpcException.internal("OSD is shutting down: QoS stage closed");
            }
            if (policy.size() >= queueCapacity) {
                rejectedCount.incrementAndGet();
                throw RpcException.overloaded("OSD QoS queue is full at " + queueCapacity
                        + " requests (osd.qos.queueCapacity); retry later");
            }
            policy.enqueue(request, request.volumeId(), request.request().costBytes());
            admittedCount.incrementAndGet();
            releaseWhilePossible();
        } finally {
            lock.unlock();
        }
    }

    /** A released request left storage: frees its slot and releases the next waiting request, if any. */
    public void completed() {
        lock.lock();
        try {
            if (inFlight <= 0) {
                throw new IllegalStateException("QoS stage: more completions than released requests");
            }
            inFlight--;
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
            while (!closed && policy.size() > 0 && inFlight < inFlightMax) {
                AuthorizedRequest next = policy.dequeue();
                inFlight++;
                try {
                    storage.accept(next);
                } catch (RuntimeException e) {
                    LOG.error("QoS stage: storage refused a released request", e);
                    next.request().call().fail(RpcException.internal("storage refused the request: " + e));
                    inFlight--;
                }
            }
        } finally {
            releasing = false;
        }
    }

    public int queueLength() {
        lock.lock();
        try {
            return policy.size();
        } finally {
            lock.unlock();
        }
    }

    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    public long admittedCount() {
        return admittedCount.get();
    }

    public long rejectedCount() {
        return rejectedCount.get();
    }

    /** Stops dispatching and hands every waiting request to {@code onDiscarded}. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (AuthorizedRequest waiting = policy.dequeue(); waiting != null; waiting = policy.dequeue()) {
                onDiscarded.accept(waiting);
            }
        } finally {
            lock.unlock();
        }
    }
}
