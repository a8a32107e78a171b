package org.xtreemfs.sim;

import java.util.PriorityQueue;

/** Event loop in simulated nanoseconds. Events at the same time run in the order they were scheduled. */
final class Simulation {
    private record Event(long timeNanos, long sequence, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(timeNanos, other.timeNanos);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final long eventsMax;
    private long nowNanos;
    private long sequence;
    private long eventsRun;

    /** @param eventsMax bound on the events one run may execute; exceeding it is a scenario bug */
    Simulation(long eventsMax) {
        this.eventsMax = eventsMax;
    }

    long nowNanos() {
        return nowNanos;
    }

    void schedule(long timeNanos, Runnable action) {
        if (timeNanos < nowNanos) {
            throw new IllegalArgumentException("cannot schedule in the past: " + timeNanos + " < " + nowNanos);
        }
        events.add(new Event(timeNanos, sequence++, action));
    }

    /** Runs events up to and including endNanos, or until none are left. */
    void runUntil(long endNanos) {
        while (!events.isEmpty() && events.peek().timeNanos() <= endNanos) {
            if (++eventsRun > eventsMax) {
                throw new IllegalStateException("more than " + eventsMax + " events: runaway scenario");
            }
            Event event = events.poll();
            nowNanos = event.timeNanos();
            event.action().run();
        }
    }

    long eventsRun() {
        return eventsRun;
    }
}
