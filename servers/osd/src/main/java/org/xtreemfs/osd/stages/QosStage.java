package org.xtreemfs.osd.stages;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
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
 * <p>Invariants: at most {@code queueCapacity} requests wait (more are rejected with OVERLOADED naming the
 * bound); at most {@code inFlightMax} are released and not yet {@link #completed}; the dispatcher never
 * idles while a request waits and a slot is free (work-conserving).
 */
public final class QosStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QosStage.class);

    private final QueueingPolicy<AuthorizedRequest> policy;
    private final int queueCapacity;
    private final int inFlightMax;
    private final Consumer<AuthorizedRequest> storage;
    private final Consumer<AuthorizedRequest> onDiscarded;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dispatchable = lock.newCondition();
    private final Thread dispatcher;
    private final AtomicLong admittedCount = new AtomicLong();
    private final AtomicLong rejectedCount = new AtomicLong();
    private int inFlight;
    private boolean closed;

    /**
     * @param storage receives released requests on the dispatcher thread; it must not block, and every
     *     released request must eventually be reported through {@link #completed()}
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
        this.dispatcher = new Thread(this::dispatchLoop, "stage-qos-dispatcher");
        dispatcher.setDaemon(true);
        dispatcher.start();
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
            dispatchable.signal();
        } finally {
            lock.unlock();
        }
    }

    /** A released request left storage: frees its slot. */
    public void completed() {
        lock.lock();
        try {
            if (inFlight <= 0) {
                throw new IllegalStateException("QoS stage: more completions than released requests");
            }
            inFlight--;
            dispatchable.signal();
        } finally {
            lock.unlock();
        }
    }

    private void dispatchLoop() {
        while (true) {
            AuthorizedRequest next;
            lock.lock();
            try {
                while (!closed && (policy.size() == 0 || inFlight >= inFlightMax)) {
                    dispatchable.await(1, TimeUnit.SECONDS);
                }
                if (closed) {
                    return;
                }
                next = policy.dequeue();
                inFlight++;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                storage.accept(next);
            } catch (RuntimeException e) {
                LOG.error("QoS stage: storage refused a released request", e);
                next.request().call().fail(RpcException.internal("storage refused the request: " + e));
                completed();
            }
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
            dispatchable.signalAll();
            for (AuthorizedRequest waiting = policy.dequeue(); waiting != null; waiting = policy.dequeue()) {
                onDiscarded.accept(waiting);
            }
        } finally {
            lock.unlock();
        }
        try {
            dispatcher.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
