package org.xtreemfs.foundation.stage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;

/**
 * One SEDA stage: a bounded FIFO queue drained by a fixed number of worker threads. Messages of
 * one stage may run concurrently on different workers; use {@link OrderedStage} when messages of
 * one key must not.
 *
 * <p>Invariants: the queue never holds more than {@code queueCapacity} messages; after
 * {@link #shutdown} returns, every accepted message was either handled or passed to
 * {@link StageHandler#onDiscarded}. Workers are daemon threads, so a forgotten stage never keeps a
 * JVM alive; servers keep running through their own non-daemon threads or the launcher.
 *
 * <p>Hand-off: one lock guards the queue and the stage's state; a submission enqueues and signals the lock's
 * condition, which wakes the longest waiting idle worker (as a blocking queue's does); a busy worker takes the next
 * message itself when it finishes. Idle workers wait on that condition without a timeout (shutdown signals them all),
 * so an idle stage wakes nobody. Of the two hand-offs before it (tests/bench/fuse/README.md, "session 12"): the 100 ms
 * timed poll of an {@code ArrayBlockingQueue} woke each idle worker ten times a second (the OSD's 16 storage workers:
 * 160 wake-ups a second, each with a cancelled condition node to unlink), 8-15 blocking waits of the storage workers
 * per 1 MiB write where this one has 2.3; workers listed and unparked one by one ({@code LockSupport}, session 10)
 * had no timer either, but their workers blocked 1.8 times per disk-bound 4 KiB read where this one's block 1.4 times
 * (why was not found: the unpark after the lock's release, then the woken worker's own acquisition, is the suspect),
 * and random reads cost more OSD CPU with it (session 11).
 *
 * @param <M> the message type, normally a sealed interface of records
 */
public final class Stage<M> implements AutoCloseable {

    /** How long close() lets pending messages drain before discarding them. */
    public static final Duration CLOSE_DRAIN_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(Stage.class);

    private enum State { RUNNING, DRAINING, STOPPED }

    private final String name;
    private final int queueCapacity;
    private final StageHandler<M> handler;
    private final Clock clock;
    private final List<WorkerLoad> workerLoads = new ArrayList<>();
    private final List<Thread> workerThreads = new ArrayList<>();
    /**
     * Guards {@link #queue} and changes of {@link #state}: a submission checks the state and enqueues under it, so no
     * message slips in after shutdown began, and a worker checks both before it waits, so no signal is missed.
     */
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled once per accepted message (one idle worker), and for all at shutdown. */
    private final Condition notEmpty = lock.newCondition();
    /** Pending messages, at most {@link #queueCapacity}; guarded by {@link #lock}. */
    private final ArrayDeque<M> queue = new ArrayDeque<>();
    /** Written under {@link #lock}; volatile for the unlocked reads of the metrics and the workers' loop. */
    private volatile State state = State.RUNNING;
    private final AtomicLong handledCount = new AtomicLong();
    private final AtomicLong failedCount = new AtomicLong();
    private final AtomicLong rejectedCount = new AtomicLong();
    private final AtomicLong errorCount = new AtomicLong();
    private volatile String lastError = "";
    private final Object sampleLock = new Object();
    private long lastSampleNanos;
    private double lastBusyFraction;

    private Stage(String name, int queueCapacity, StageHandler<M> handler, Clock clock) {
        this.name = name;
        this.queueCapacity = queueCapacity;
        this.handler = handler;
        this.clock = clock;
        this.lastSampleNanos = clock.monotonicNanos();
    }

    /**
     * Creates a stage and starts its workers.
     *
     * @param name short name used in thread names, errors and metrics, e.g. {@code storage}
     * @param queueCapacity maximum number of pending messages, at least 1
     * @param workerThreadCount number of workers, at least 1
     * @param clock measures busy time for {@link #sampleBusyFraction()}
     */
    public static <M> Stage<M> start(String name, int queueCapacity, int workerThreadCount,
            Clock clock, StageHandler<M> handler) {
        if (queueCapacity < 1 || workerThreadCount < 1) {
            throw new IllegalArgumentException("stage " + name + " needs queueCapacity >= 1 and"
                    + " workerThreadCount >= 1, got " + queueCapacity + " and "
                    + workerThreadCount);
        }
        Stage<M> stage = new Stage<>(name, queueCapacity, handler, clock);
        for (int i = 0; i < workerThreadCount; i++) {
            WorkerLoad load = new WorkerLoad();
            Thread thread = new Thread(() -> stage.runWorker(load), "stage-" + name + "-" + i);
            thread.setDaemon(true);
            stage.workerLoads.add(load);
            stage.workerThreads.add(thread);
        }
        stage.workerThreads.forEach(Thread::start);
        return stage;
    }

    /**
     * Enqueues a message.
     *
     * @throws OverloadedException if the queue is full
     * @throws StageShutdownException if the stage is shutting down
     */
    public void submit(M message) {
        if (!offer(message)) {
            throw new OverloadedException(name, queueCapacity);
        }
    }

    /**
     * Enqueues a message if there is room.
     *
     * @return false if the queue is full (the message was not accepted)
     * @throws StageShutdownException if the stage is shutting down
     */
    public boolean offer(M message) {
        if (message == null) {
            throw new IllegalArgumentException("stage " + name + ": message must not be null");
        }
        lock.lock();
        try {
            if (state != State.RUNNING) {
                throw new StageShutdownException(name, "no new messages are accepted");
            }
            if (queue.size() >= queueCapacity) {
                rejectedCount.incrementAndGet();
                return false;
            }
            queue.addLast(message);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    public String name() {
        return name;
    }

    public int queueLength() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    /**
     * Ends the current load period and returns the share of worker time spent in handlers during
     * it (0.0..1.0, averaged over workers). Call once per period, e.g. per heartbeat; the result is
     * also what {@link #metrics()} reports until the next call.
     */
    public double sampleBusyFraction() {
        synchronized (sampleLock) {
            long nowNanos = clock.monotonicNanos();
            long periodNanos = nowNanos - lastSampleNanos;
            long busyNanos = 0;
            for (WorkerLoad load : workerLoads) {
                busyNanos += load.takeBusyNanos(nowNanos);
            }
            lastSampleNanos = nowNanos;
            if (periodNanos > 0) {
                double fraction = (double) busyNanos / ((double) periodNanos * workerLoads.size());
                lastBusyFraction = Math.max(0.0, Math.min(1.0, fraction));
            }
            return lastBusyFraction;
        }
    }

    public StageMetrics metrics() {
        double busyFraction;
        synchronized (sampleLock) {
            busyFraction = lastBusyFraction;
        }
        return new StageMetrics(name, queueLength(), queueCapacity, workerThreads.size(),
                handledCount.get(), failedCount.get(), rejectedCount.get(), busyFraction, errorCount.get(),
                lastError);
    }

    /**
     * Stops accepting messages, lets workers drain the queue for up to {@code drainTimeout}, then
     * interrupts them and passes what is left to {@link StageHandler#onDiscarded}. Idempotent.
     * The timeout is real time: it bounds how long a process waits to exit. A message a worker had already taken
     * when the timeout ran out is still handled (not discarded), possibly after this returns.
     *
     * @return the number of discarded messages
     */
    public int shutdown(Duration drainTimeout) {
        beginShutdown();
        return awaitShutdown(System.nanoTime() + drainTimeout.toNanos());
    }

    /** Shuts down with {@link #CLOSE_DRAIN_TIMEOUT}. */
    @Override
    public void close() {
        shutdown(CLOSE_DRAIN_TIMEOUT);
    }

    void beginShutdown() {
        lock.lock();
        try {
            if (state == State.RUNNING) {
                state = State.DRAINING;
            }
            notEmpty.signalAll(); // each idle worker drains what is left, then ends
        } finally {
            lock.unlock();
        }
    }

    int awaitShutdown(long deadlineNanos) {
        for (Thread thread : workerThreads) {
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            joinQuietly(thread, Math.max(1, remainingMs));
        }
        int discarded = discardPending();
        for (Thread thread : workerThreads) {
            if (thread.isAlive()) {
                LOG.warn("stage {}: worker {} still busy after the drain timeout; interrupting",
                        name, thread.getName());
                thread.interrupt();
            }
        }
        return discarded;
    }

    /** Stops the stage and takes what no worker took, in one step: a message is handled or discarded, never both. */
    private int discardPending() {
        List<M> pending;
        lock.lock();
        try {
            state = State.STOPPED;
            pending = new ArrayList<>(queue);
            queue.clear();
        } finally {
            lock.unlock();
        }
        for (M message : pending) {
            try {
                handler.onDiscarded(message, new StageShutdownException(name,
                        "the message was discarded before it was handled"));
            } catch (RuntimeException e) {
                LOG.warn("stage {}: onDiscarded failed", name, e);
            }
        }
        if (!pending.isEmpty()) {
            LOG.warn("stage {}: discarded {} pending messages at shutdown", name, pending.size());
        }
        return pending.size();
    }

    private static void joinQuietly(Thread thread, long timeoutMs) {
        try {
            thread.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes messages while there are any; waits on {@link #notEmpty} when there are none, and ends once the stage
     * stops accepting and nothing is left.
     */
    private void runWorker(WorkerLoad load) {
        while (true) {
            M message;
            lock.lock();
            try {
                while ((message = queue.pollFirst()) == null) {
                    if (state != State.RUNNING) {
                        return;
                    }
                    // An interrupt (awaitShutdown's, for a worker busy past the drain timeout) must not end the wait
                    // by itself: the loop decides when to end, from the state.
                    notEmpty.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
            // A stale interrupt (awaitShutdown's, meant for the previous message, or kept by a handler that restored
            // it) must not reach the next handler: a FileChannel interrupted during I/O closes itself for every user.
            // The timed poll's lockInterruptibly consumed it the same way.
            Thread.interrupted();
            handleOne(message, load);
        }
    }

    /**
     * Handles one message and never lets anything escape: a worker that died would leave its queue (and, in
     * an ordered stage, every key of its lane) unserved for good while the process looks alive. An
     * {@link Error} (out of memory, stack overflow) fails the message like an exception, through
     * {@link StageHandler#onFailure} wrapped in a {@link StageHandlerError}, so its caller is answered and
     * what it held is released; the stage counts it for the status page's health line and goes on.
     */
    private void handleOne(M message, WorkerLoad load) {
        load.begin(clock.monotonicNanos());
        try {
            handler.handle(message);
            handledCount.incrementAndGet();
        } catch (Throwable thrown) {
            failedCount.incrementAndGet();
            Exception error;
            if (thrown instanceof Exception exception) {
                error = exception;
                LOG.warn("stage {}: handler failed on {}", name, message.getClass().getSimpleName(), thrown);
            } else {
                errorCount.incrementAndGet();
                lastError = thrown.toString();
                error = new StageHandlerError(name, thrown);
                LOG.error("stage {}: handler ended in {} on {}; the message is failed and the worker goes on",
                        name, thrown, message.getClass().getSimpleName(), thrown);
            }
            try {
                handler.onFailure(message, error);
            } catch (Throwable secondary) {
                LOG.warn("stage {}: onFailure failed", name, secondary);
            }
        } finally {
            load.end(clock.monotonicNanos());
        }
    }

    /** Busy time of one worker since the last sample; guarded by its own monitor. */
    private static final class WorkerLoad {
        private long busyNanos;
        private boolean inMessage;
        private long messageStartNanos;

        synchronized void begin(long nowNanos) {
            inMessage = true;
            messageStartNanos = nowNanos;
        }

        synchronized void end(long nowNanos) {
            busyNanos += Math.max(0, nowNanos - messageStartNanos);
            inMessage = false;
        }

        /** Counts a message still running up to now, so long messages show in every period. */
        synchronized long takeBusyNanos(long nowNanos) {
            if (inMessage) {
                busyNanos += Math.max(0, nowNanos - messageStartNanos);
                messageStartNanos = nowNanos;
            }
            long result = busyNanos;
            busyNanos = 0;
            return result;
        }
    }
}
