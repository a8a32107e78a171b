package org.xtreemfs.foundation.stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.clock.Clock;

/**
 * A pool of single-threaded lanes: messages with equal keys (e.g. a file id) go to the same lane,
 * so they run in submission order and never concurrently; different keys run in parallel unless
 * they hash to the same lane. This is the OSD storage stage's model (XtreemFS hashes file ids to
 * storage threads the same way).
 *
 * <p>Invariant: each lane's queue is bounded by {@code laneQueueCapacity}; a full lane rejects
 * even if other lanes have room, because moving a message to another lane would break ordering.
 *
 * @param <K> the ordering key; must have consistent {@code hashCode}/{@code equals}
 * @param <M> the message type
 */
public final class OrderedStage<K, M> implements AutoCloseable {

    private final String name;
    private final List<Stage<M>> lanes;

    private OrderedStage(String name, List<Stage<M>> lanes) {
        this.name = name;
        this.lanes = lanes;
    }

    /**
     * @param laneCount number of threads, each with its own queue
     * @param laneQueueCapacity bound of each lane's queue; total capacity is the product
     */
    public static <K, M> OrderedStage<K, M> start(String name, int laneCount,
            int laneQueueCapacity, Clock clock, StageHandler<M> handler) {
        if (laneCount < 1) {
            throw new IllegalArgumentException("ordered stage " + name + " needs laneCount >= 1");
        }
        List<Stage<M>> lanes = new ArrayList<>(laneCount);
        for (int i = 0; i < laneCount; i++) {
            lanes.add(Stage.start(name + "#" + i, laneQueueCapacity, 1, clock, handler));
        }
        return new OrderedStage<>(name, List.copyOf(lanes));
    }

    /**
     * Enqueues a message behind every earlier message with the same key.
     *
     * @throws OverloadedException naming the lane if its queue is full
     * @throws StageShutdownException if the stage is shutting down
     */
    public void submit(K key, M message) {
        laneFor(key).submit(message);
    }

    /** Like {@link #submit} but returns false instead of throwing when the lane is full. */
    public boolean offer(K key, M message) {
        return laneFor(key).offer(message);
    }

    public String name() {
        return name;
    }

    public int laneCount() {
        return lanes.size();
    }

    /** The lane a key maps to; stable for the life of the stage. */
    public int laneIndex(K key) {
        int hash = key.hashCode();
        return Math.floorMod(hash ^ (hash >>> 16), lanes.size());
    }

    /** Mean busy fraction of all lanes over the period since the previous call. */
    public double sampleBusyFraction() {
        double sum = 0;
        for (Stage<M> lane : lanes) {
            sum += lane.sampleBusyFraction();
        }
        return sum / lanes.size();
    }

    /** Totals over all lanes; busy fraction is the lanes' mean over the last period. */
    public StageMetrics metrics() {
        int queueLength = 0;
        int queueCapacity = 0;
        long handled = 0;
        long failed = 0;
        long rejected = 0;
        double busy = 0;
        long errors = 0;
        String lastError = "";
        for (Stage<M> lane : lanes) {
            StageMetrics metrics = lane.metrics();
            queueLength += metrics.queueLength();
            queueCapacity += metrics.queueCapacity();
            handled += metrics.handledCount();
            failed += metrics.failedCount();
            rejected += metrics.rejectedCount();
            busy += metrics.busyFraction();
            errors += metrics.errorCount();
            if (!metrics.lastError().isEmpty()) {
                lastError = metrics.lastError();
            }
        }
        return new StageMetrics(name, queueLength, queueCapacity, lanes.size(), handled, failed,
                rejected, busy / lanes.size(), errors, lastError);
    }

    /** Shuts all lanes down under one common deadline; see {@link Stage#shutdown}. */
    public int shutdown(Duration drainTimeout) {
        long deadlineNanos = System.nanoTime() + drainTimeout.toNanos();
        lanes.forEach(Stage::beginShutdown);
        int discarded = 0;
        for (Stage<M> lane : lanes) {
            discarded += lane.awaitShutdown(deadlineNanos);
        }
        return discarded;
    }

    @Override
    public void close() {
        shutdown(Stage.CLOSE_DRAIN_TIMEOUT);
    }

    private Stage<M> laneFor(K key) {
        if (key == null) {
            throw new IllegalArgumentException("ordered stage " + name + ": key must not be null");
        }
        return lanes.get(laneIndex(key));
    }
}
