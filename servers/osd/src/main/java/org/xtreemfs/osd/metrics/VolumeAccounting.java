package org.xtreemfs.osd.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What each volume receives from this OSD, in fixed windows of {@code windowNanos} (1 s in the OSD): its
 * reservation, what completed per window (cost, bytes, requests), its queue depth, the latency of its requests
 * (from entering the QoS stage to the answer: queue wait + service) and the fraction of windows with demand in
 * which it received at least {@link #ATTAINED_FRACTION} of its reservation.
 *
 * <p>A window <em>met</em> the reservation when the cost completed in it is at least {@link #ATTAINED_FRACTION}
 * of the reservation times the fraction of the window in which the volume had requests waiting in the QoS
 * queue (was backlogged). While nothing of it waits, a volume gets all it asks for, so only backlogged time
 * entitles it to its reservation: a light volume is not failed for asking little, and a closed-loop client
 * (fio with a fixed iodepth, whose arrivals follow its completions) starved behind others is backlogged all
 * the window and judged against its full reservation. A window has <em>demand</em> when something was
 * outstanding (queued or in storage) at its start, or arrived or was refused in it; windows without demand are
 * neither met nor missed. Only reserved volumes (reservation &gt; 0) count windows.
 *
 * <p>No clock: every method takes the caller's monotonic time, so tests drive it with explicit nanos. Memory
 * is bounded: at most {@code volumesMax} volumes (later ones are counted in {@link #untrackedEventCount} only),
 * {@code windowsKept} closed windows and {@code latencySamplesKept} latency samples each; a volume with nothing
 * outstanding for {@code idleForgetNanos} is forgotten, like the fair queue forgets idle flows. Thread-safe
 * (every method synchronizes): the QoS stage records, the status page reads.
 *
 * <p>Continuity: for each object read or write the QoS stage also reports ({@link #objectAccess}) whether it was
 * charged a positioning and whether it arrived out of order (inside or next to the range its file's stream
 * recently covered, not at the previous end: {@code qos.wfq.StreamContinuity}). On a byte-charged OSD they
 * explain a cost above the bytes: each positioning adds {@code ShareRule.bytesPerRandomIo} to a request's cost.
 */
public final class VolumeAccounting {
    /** A window meets the reservation at 90 % of it (the published SLO's threshold). */
    public static final double ATTAINED_FRACTION = 0.9;
    /** How many of the newest windows' achieved figures a snapshot lists (for a chart of the last minute). */
    public static final int RECENT_WINDOWS_SHOWN = 60;

    /**
     * One closed window of a volume; {@code backloggedNanos} of it the volume had requests waiting in the QoS queue
     * (what its reservation entitles it to in the window is that time's share of the reservation), and meanwhile the
     * queue released {@code othersReleasedCostWhileBacklogged} of other volumes' requests to storage. A missed
     * window with nothing of others released while the volume waited is a shortfall of the OSD's capacity (its
     * device or, on a loaded machine, its CPU), not of the queue's order: the queue gave the volume every slot.
     */
    public record Window(long startNanos, long achievedCost, long achievedBytes, long achievedRequests,
            long positioningChargedRequests, long outOfOrderRequests, long backloggedNanos,
            long othersReleasedCostWhileBacklogged, boolean demand, boolean met) {}

    /**
     * A volume's figures at one time. Achieved figures are those of the last closed window (per window, i.e.
     * per second with 1-s windows); the attainment is over the kept windows ({@code windowsWithDemand} of
     * them had demand), and the totals count every window since the volume was first seen.
     */
    public record VolumeSnapshot(String volumeId, long reservationCostPerSecond, long achievedCostPerWindow,
            long achievedBytesPerWindow, long achievedRequestsPerWindow, int queueDepthRequests,
            long outstandingRequests, double latencyP50Seconds, double latencyP99Seconds, long latencySamples,
            int windowsWithDemand, int windowsMet, double attainment, long windowsWithDemandTotal,
            long windowsMetTotal, List<Long> recentAchievedCostPerWindow, long objectAccessRequestsTotal,
            long positioningChargedRequestsTotal, long outOfOrderRequestsTotal) {}

    private final long windowNanos;
    private final int windowsKept;
    private final int latencySamplesKept;
    private final long idleForgetNanos;
    private final int volumesMax;
    private final Map<String, Volume> volumes = new HashMap<>();
    private long untrackedEventCount;
    /**
     * Cost released to storage so far, all tracked volumes together: each volume marks it to see what the queue
     * released of other volumes while it had requests waiting ({@link Window#othersReleasedCostWhileBacklogged}).
     */
    private long releasedCostAll;

    public VolumeAccounting(long windowNanos, int windowsKept, int latencySamplesKept, long idleForgetNanos,
            int volumesMax) {
        if (windowNanos <= 0 || windowsKept < 1 || latencySamplesKept < 1 || idleForgetNanos <= 0
                || volumesMax < 1) {
            throw new IllegalArgumentException("volume accounting needs windowNanos, windowsKept, "
                    + "latencySamplesKept, idleForgetNanos, volumesMax > 0, got " + windowNanos + ", " + windowsKept
                    + ", " + latencySamplesKept + ", " + idleForgetNanos + ", " + volumesMax);
        }
        this.windowNanos = windowNanos;
        this.windowsKept = windowsKept;
        this.latencySamplesKept = latencySamplesKept;
        this.idleForgetNanos = idleForgetNanos;
        this.volumesMax = volumesMax;
    }

    /** A request of the volume entered the queue; its reservation (cost unit/s, 0 if none) is the latest. */
    public synchronized void enqueued(String volumeId, long reservationCostPerSecond, long cost, long nowNanos) {
        Volume volume = volume(volumeId, nowNanos);
        if (volume == null) {
            return;
        }
        volume.reservationCostPerSecond = Math.max(0, reservationCostPerSecond);
        volume.demand = true;
        volume.outstandingCost += cost;
        volume.outstandingRequests++;
        volume.queueDepth++;
    }

    /** A request of the volume was refused (queue full): demand the volume had and did not get. */
    public synchronized void refused(String volumeId, long reservationCostPerSecond, long nowNanos) {
        Volume volume = volume(volumeId, nowNanos);
        if (volume == null) {
            return;
        }
        volume.reservationCostPerSecond = Math.max(0, reservationCostPerSecond);
        volume.demand = true;
    }

    /**
     * An object read or write of the volume entered the queue: whether it was charged a positioning and whether it
     * arrived out of order in its stream (both may hold where the charge is stricter than the continuity rule).
     */
    public synchronized void objectAccess(String volumeId, boolean positioningCharged, boolean outOfOrder,
            long nowNanos) {
        Volume volume = existing(volumeId, nowNanos);
        if (volume == null) {
            return;
        }
        volume.objectAccessRequestsTotal++;
        if (positioningCharged) {
            volume.positioningChargedRequests++;
            volume.positioningChargedRequestsTotal++;
        }
        if (outOfOrder) {
            volume.outOfOrderRequests++;
            volume.outOfOrderRequestsTotal++;
        }
    }

    /** A queued request of {@code cost} left the queue for storage (the queue chose it). */
    public synchronized void released(String volumeId, long cost, long nowNanos) {
        Volume volume = existing(volumeId, nowNanos);
        if (volume != null) {
            volume.queueDepth = Math.max(0, volume.queueDepth - 1);
            releasedCostAll += cost;
            volume.releasedCostAllMark += cost; // its own release is not another volume's
        }
    }

    /** A released request was answered, {@code latencyNanos} after it was enqueued. */
    public synchronized void completed(String volumeId, long cost, long payloadBytes, long latencyNanos,
            long nowNanos) {
        Volume volume = existing(volumeId, nowNanos);
        if (volume == null) {
            return;
        }
        volume.achievedCost += cost;
        volume.achievedBytes += payloadBytes;
        volume.achievedRequests++;
        volume.leave(cost);
        volume.latencyNanos[volume.latencyNext] = Math.max(0, latencyNanos);
        volume.latencyNext = (volume.latencyNext + 1) % latencySamplesKept;
        volume.latencyCount = Math.min(latencySamplesKept, volume.latencyCount + 1);
    }

    /** A queued request was dropped without being answered by storage (the stage closed). */
    public synchronized void discarded(String volumeId, long cost, long nowNanos) {
        Volume volume = existing(volumeId, nowNanos);
        if (volume != null) {
            volume.queueDepth = Math.max(0, volume.queueDepth - 1);
            volume.leave(cost);
        }
    }

    /** Requests not accounted because {@code volumesMax} volumes were already tracked. */
    public synchronized long untrackedEventCount() {
        return untrackedEventCount;
    }

    /**
     * Every tracked volume at {@code nowNanos}, by volume id; forgets idle volumes first. Under the lock (which
     * the QoS stage waits for) only copies are taken; sorting latencies and ordering volumes happen after.
     */
    public List<VolumeSnapshot> snapshot(long nowNanos) {
        List<Copy> copies;
        synchronized (this) {
            forgetIdle(nowNanos);
            copies = new ArrayList<>(volumes.size());
            for (Volume volume : volumes.values()) {
                volume.roll(nowNanos);
                copies.add(volume.copy());
            }
        }
        List<VolumeSnapshot> snapshots = new ArrayList<>(copies.size());
        for (Copy copy : copies) {
            snapshots.add(copy.snapshot());
        }
        snapshots.sort(Comparator.comparing(VolumeSnapshot::volumeId));
        return snapshots;
    }

    /** A volume's figures copied under the lock, its latency samples not yet sorted. */
    private record Copy(VolumeSnapshot withoutLatency, long[] latencyNanos) {
        VolumeSnapshot snapshot() {
            Arrays.sort(latencyNanos);
            VolumeSnapshot v = withoutLatency;
            return new VolumeSnapshot(v.volumeId(), v.reservationCostPerSecond(), v.achievedCostPerWindow(),
                    v.achievedBytesPerWindow(), v.achievedRequestsPerWindow(), v.queueDepthRequests(),
                    v.outstandingRequests(), percentileSeconds(latencyNanos, 0.50),
                    percentileSeconds(latencyNanos, 0.99), latencyNanos.length, v.windowsWithDemand(),
                    v.windowsMet(), v.attainment(), v.windowsWithDemandTotal(), v.windowsMetTotal(),
                    v.recentAchievedCostPerWindow(), v.objectAccessRequestsTotal(),
                    v.positioningChargedRequestsTotal(), v.outOfOrderRequestsTotal());
        }
    }

    /** The closed windows kept for a volume, oldest first; empty for an unknown volume. */
    public synchronized List<Window> windows(String volumeId, long nowNanos) {
        Volume volume = volumes.get(volumeId);
        if (volume == null) {
            return List.of();
        }
        volume.roll(nowNanos);
        return volume.windows();
    }

    private Volume existing(String volumeId, long nowNanos) {
        Volume volume = volumes.get(volumeId);
        if (volume == null) {
            untrackedEventCount++;
            return null;
        }
        volume.roll(nowNanos);
        volume.accountBacklog(nowNanos);
        volume.lastEventNanos = nowNanos;
        return volume;
    }

    private Volume volume(String volumeId, long nowNanos) {
        Volume volume = volumes.get(volumeId);
        if (volume == null) {
            if (volumes.size() >= volumesMax) {
                forgetIdle(nowNanos);
            }
            if (volumes.size() >= volumesMax) {
                untrackedEventCount++;
                return null;
            }
            volume = new Volume(volumeId, nowNanos);
            volumes.put(volumeId, volume);
        }
        volume.roll(nowNanos);
        volume.accountBacklog(nowNanos);
        volume.lastEventNanos = nowNanos;
        return volume;
    }

    private void forgetIdle(long nowNanos) {
        Iterator<Volume> each = volumes.values().iterator();
        while (each.hasNext()) {
            Volume volume = each.next();
            if (volume.outstandingRequests == 0 && nowNanos - volume.lastEventNanos >= idleForgetNanos) {
                each.remove();
            }
        }
    }

    /** One volume's state; the current window is open from {@code windowStartNanos}. */
    private final class Volume {
        final String volumeId;
        long reservationCostPerSecond;
        long lastEventNanos;
        int queueDepth;
        long outstandingRequests;
        long outstandingCost;
        // The open window.
        long windowStartNanos;
        long outstandingCostAtWindowStart;
        /** Time in the open window with queueDepth > 0, accounted up to backlogMarkNanos. */
        long backloggedNanos;
        long backlogMarkNanos;
        /**
         * Cost the queue released of other volumes in the open window while this one had requests waiting,
         * accounted up to {@link #releasedCostAllMark} (the all-volume total when last accounted). Exact between this
         * volume's events, since its queue depth changes only at them; a window's last stretch is accounted at the
         * volume's next event, so it may take in what others got just after the window ended.
         */
        long othersReleasedCostWhileBacklogged;
        long releasedCostAllMark;
        long achievedCost;
        long achievedBytes;
        long achievedRequests;
        /** Object accesses that entered the queue in the open window: charged a positioning, out of order. */
        long positioningChargedRequests;
        long outOfOrderRequests;
        boolean demand;
        // Closed windows: a ring of windowsKept, the newest at (windowNext - 1).
        final Window[] closed = new Window[windowsKept];
        int windowNext;
        int windowCount;
        /** Of the kept windows: how many had demand, how many of those met (kept up to date on eviction). */
        int keptWithDemand;
        int keptMet;
        long windowsWithDemandTotal;
        long windowsMetTotal;
        long objectAccessRequestsTotal;
        long positioningChargedRequestsTotal;
        long outOfOrderRequestsTotal;
        // Latency samples: a ring of latencySamplesKept.
        final long[] latencyNanos = new long[latencySamplesKept];
        int latencyNext;
        int latencyCount;

        Volume(String volumeId, long nowNanos) {
            this.volumeId = volumeId;
            this.windowStartNanos = nowNanos - Math.floorMod(nowNanos, windowNanos);
            this.backlogMarkNanos = nowNanos;
            this.lastEventNanos = nowNanos;
            this.releasedCostAllMark = releasedCostAll;
        }

        /** Adds the time since the last mark to the open window's backlogged time if requests waited. */
        void accountBacklog(long untilNanos) {
            if (queueDepth > 0 && untilNanos > backlogMarkNanos) {
                backloggedNanos += untilNanos - backlogMarkNanos;
            }
            backlogMarkNanos = Math.max(backlogMarkNanos, untilNanos);
            if (queueDepth > 0) {
                othersReleasedCostWhileBacklogged += releasedCostAll - releasedCostAllMark;
            }
            releasedCostAllMark = releasedCostAll;
        }

        void leave(long cost) {
            outstandingRequests = Math.max(0, outstandingRequests - 1);
            outstandingCost = Math.max(0, outstandingCost - cost);
        }

        /**
         * Closes every window that ended by {@code nowNanos}. After a long quiet gap only the last windowsKept
         * windows are materialised (the older ones would fall out of the ring anyway); the skipped ones are
         * not counted in the totals either (with nothing outstanding, the usual case after a gap, they had no
         * demand anyway).
         */
        void roll(long nowNanos) {
            long endedWindows = (nowNanos - windowStartNanos) / windowNanos;
            if (endedWindows <= 0) {
                return;
            }
            close();
            endedWindows--;
            if (endedWindows > windowsKept) {
                windowStartNanos += (endedWindows - windowsKept) * windowNanos;
                backlogMarkNanos = windowStartNanos;
                endedWindows = windowsKept;
            }
            for (long i = 0; i < endedWindows; i++) {
                close();
            }
        }

        /** Closes the open window and opens the next one. */
        private void close() {
            long windowEndNanos = windowStartNanos + windowNanos;
            accountBacklog(windowEndNanos);
            boolean hadDemand = demand || outstandingCostAtWindowStart > 0 || backloggedNanos > 0;
            boolean met = false;
            if (hadDemand && reservationCostPerSecond > 0) {
                double entitledCost = reservationCostPerSecond * (backloggedNanos / 1e9);
                met = achievedCost >= ATTAINED_FRACTION * entitledCost;
                windowsWithDemandTotal++;
                if (met) {
                    windowsMetTotal++;
                }
            }
            Window evicted = closed[windowNext];
            if (evicted != null && evicted.demand()) {
                keptWithDemand--;
                keptMet -= evicted.met() ? 1 : 0;
            }
            Window window = new Window(windowStartNanos, achievedCost, achievedBytes, achievedRequests,
                    positioningChargedRequests, outOfOrderRequests, backloggedNanos, othersReleasedCostWhileBacklogged,
                    hadDemand && reservationCostPerSecond > 0, met);
            if (window.demand()) {
                keptWithDemand++;
                keptMet += met ? 1 : 0;
            }
            closed[windowNext] = window;
            windowNext = (windowNext + 1) % windowsKept;
            windowCount = Math.min(windowsKept, windowCount + 1);
            windowStartNanos = windowEndNanos;
            outstandingCostAtWindowStart = outstandingCost;
            backloggedNanos = 0;
            othersReleasedCostWhileBacklogged = 0;
            achievedCost = 0;
            achievedBytes = 0;
            achievedRequests = 0;
            positioningChargedRequests = 0;
            outOfOrderRequests = 0;
            demand = false;
        }

        List<Window> windows() {
            List<Window> oldestFirst = new ArrayList<>(windowCount);
            for (int i = windowCount; i >= 1; i--) {
                oldestFirst.add(closed[Math.floorMod(windowNext - i, windowsKept)]);
            }
            return oldestFirst;
        }

        /** The figures without latency percentiles, and a copy of the latency samples to sort outside the lock. */
        Copy copy() {
            int shown = Math.min(RECENT_WINDOWS_SHOWN, windowCount);
            List<Long> recent = new ArrayList<>(shown);
            for (int i = shown; i >= 1; i--) {
                recent.add(closed[Math.floorMod(windowNext - i, windowsKept)].achievedCost());
            }
            Window last = windowCount == 0 ? null : closed[Math.floorMod(windowNext - 1, windowsKept)];
            VolumeSnapshot figures = new VolumeSnapshot(volumeId, reservationCostPerSecond,
                    last == null ? 0 : last.achievedCost(), last == null ? 0 : last.achievedBytes(),
                    last == null ? 0 : last.achievedRequests(), queueDepth, outstandingRequests, Double.NaN,
                    Double.NaN, latencyCount, keptWithDemand, keptMet,
                    keptWithDemand == 0 ? Double.NaN : (double) keptMet / keptWithDemand, windowsWithDemandTotal,
                    windowsMetTotal, recent, objectAccessRequestsTotal, positioningChargedRequestsTotal,
                    outOfOrderRequestsTotal);
            return new Copy(figures, Arrays.copyOf(latencyNanos, latencyCount));
        }
    }

    /** Nearest-rank percentile of sorted samples, in seconds; NaN without samples. */
    static double percentileSeconds(long[] sortedNanos, double fraction) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(fraction * sortedNanos.length);
        return sortedNanos[Math.max(0, rank - 1)] / 1e9;
    }
}
