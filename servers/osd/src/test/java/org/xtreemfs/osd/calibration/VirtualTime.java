package org.xtreemfs.osd.calibration;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.osd.storage.EmulatedDevice;

/**
 * A clock that moves only while every thread it knows is waiting for it: discrete-event time for real threads.
 * The calibration's clients (made by {@link #newThread}, so the clock knows them from before they start) run
 * their real I/O in zero time; when the last of them waits for the emulated device ({@link #awaitNanos}), the
 * clock jumps to the earliest deadline and wakes exactly that waiter (ties: the lower client, i.e. the earlier
 * made thread, first, as {@code PatternDriver} breaks ties by client number) and moves on only once it waits
 * again or ends. So the host is never late, however slow the machine: what the calibration measures is what the
 * emulated device serves to a punctual host, which {@code PatternDriver} computes from the model.
 *
 * <p>A thread the clock did not make (the calibration's main thread, fsyncing files between phases) may wait
 * too; it does not hold the clock back while it runs (it runs only between phases, when no client exists).
 * A thread blocked on anything else (a lock, I/O, another client's turn) counts as running, so time never
 * moves past it; a wait that sees no progress for {@link #STALL_LIMIT_SECONDS} fails instead of hanging.
 */
final class VirtualTime implements Clock, EmulatedDevice.Waiter, ThreadFactory {
    /** Real seconds a waiter waits without the clock moving before the run is declared stuck. */
    static final long STALL_LIMIT_SECONDS = 120;
    private static final long START_WALL_CLOCK_MILLIS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    /** One thread waiting until {@code deadlineNanos}; ordered by deadline, then client, then arrival. */
    private record Sleeper(long deadlineNanos, int order, long sequence) implements Comparable<Sleeper> {
        @Override
        public int compareTo(Sleeper other) {
            int byDeadline = Long.compare(deadlineNanos, other.deadlineNanos);
            if (byDeadline != 0) {
                return byDeadline;
            }
            int byOrder = Integer.compare(order, other.order);
            return byOrder != 0 ? byOrder : Long.compare(sequence, other.sequence);
        }
    }

    private final Object lock = new Object();
    private long nowNanos; // guarded by lock; only grows
    /** Made threads not waiting here, plus any released waiter that has not resumed yet; guarded by lock. */
    private int running;
    private int nextOrder; // guarded by lock
    private long nextSequence; // guarded by lock
    private long advances; // guarded by lock: how often the clock woke a waiter (progress, for the stall check)
    private final Map<Thread, Integer> made = new HashMap<>(); // guarded by lock: thread -> creation order
    private final TreeSet<Sleeper> sleepers = new TreeSet<>(); // guarded by lock
    private Sleeper released; // guarded by lock: woken, not yet resumed

    @Override
    public long wallClockMillis() {
        return START_WALL_CLOCK_MILLIS + monotonicNanos() / 1_000_000;
    }

    @Override
    public long monotonicNanos() {
        synchronized (lock) {
            return nowNanos;
        }
    }

    /** How often the clock has moved to a waiter's deadline so far. */
    long advances() {
        synchronized (lock) {
            return advances;
        }
    }

    /** A thread the clock counts as running from now until it ends or waits here. */
    @Override
    public Thread newThread(Runnable work) {
        Thread[] thread = new Thread[1];
        thread[0] = new Thread(() -> {
            try {
                work.run();
            } finally {
                ended(thread[0]);
            }
        });
        synchronized (lock) {
            made.put(thread[0], nextOrder++);
            running++;
        }
        return thread[0];
    }

    @Override
    public void awaitNanos(long deadlineNanos) {
        Thread current = Thread.currentThread();
        synchronized (lock) {
            if (deadlineNanos <= nowNanos) {
                return;
            }
            Integer order = made.get(current);
            Sleeper sleeper = new Sleeper(deadlineNanos, order == null ? Integer.MAX_VALUE : order, nextSequence++);
            sleepers.add(sleeper);
            if (order != null) {
                running--;
            }
            advanceIfAllWait();
            long seenAdvances = advances;
            long stallStartNanos = System.nanoTime();
            while (released != sleeper) {
                try {
                    lock.wait(1000);
                } catch (InterruptedException e) {
                    sleepers.remove(sleeper);
                    running += order != null ? 1 : 0;
                    current.interrupt();
                    return; // as EmulatedDevice.parking: an interrupt ends the wait early
                }
                if (advances != seenAdvances) {
                    seenAdvances = advances;
                    stallStartNanos = System.nanoTime();
                } else if (System.nanoTime() - stallStartNanos > TimeUnit.SECONDS.toNanos(STALL_LIMIT_SECONDS)) {
                    throw new IllegalStateException("virtual time stuck at " + nowNanos + " ns for "
                            + STALL_LIMIT_SECONDS + " s: " + running + " thread(s) neither wait nor end, waiting: "
                            + sleepers);
                }
            }
            released = null;
            if (order == null) {
                running--; // an unknown thread is not tracked once it runs again
            }
            advanceIfAllWait();
        }
    }

    private void ended(Thread thread) {
        synchronized (lock) {
            made.remove(thread);
            running--;
            advanceIfAllWait();
        }
    }

    /** When nothing runs and nobody is being woken: the clock moves to the earliest deadline and wakes that one. */
    private void advanceIfAllWait() {
        if (running > 0 || released != null || sleepers.isEmpty()) {
            return;
        }
        Sleeper next = sleepers.pollFirst();
        nowNanos = Math.max(nowNanos, next.deadlineNanos());
        released = next;
        running++; // until it resumes (an unknown thread) or waits or ends again (a made one)
        advances++;
        lock.notifyAll();
    }
}
