package org.xtreemfs.osd.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xtreemfs.osd.metrics.VolumeAccounting.VolumeSnapshot;
import org.xtreemfs.osd.metrics.VolumeAccounting.Window;

/**
 * The per-volume history the status server's chart page draws ({@code GET /qos/history.json}): per volume its
 * reservation and what it achieved in each window the {@link VolumeAccounting} keeps (5 minutes of 1-s windows
 * in the OSD), oldest first, with the wall-clock end of the newest window so the page can lay the windows on a
 * time axis. The history itself is the accounting's (bounded there); this only presents it, so the chart shows
 * exactly the windows the attainment is computed from. {@code /status.json} lists only the last minute, without
 * times, because the MRC reads it from every OSD.
 *
 * <p>Bounded: at most {@link #VOLUMES_SHOWN_MAX} volumes (reserved ones first, then by volume id; the rest
 * are counted in {@code volumesOmitted}), since a page of more charts is not readable anyway. No clock: the
 * caller passes the accounting's monotonic time and the wall-clock time of the same moment.
 */
public final class VolumeHistory {
    /** Volumes listed at most; a chart page with more would not be read. */
    public static final int VOLUMES_SHOWN_MAX = 32;

    private final VolumeAccounting accounting;
    private final VolumeMetrics.CostUnit costUnit;
    private final long windowNanos;
    private final int windowsKept;

    /**
     * @param windowNanos the accounting's window length
     * @param windowsKept how many windows the accounting keeps (the chart's time span)
     */
    public VolumeHistory(VolumeAccounting accounting, VolumeMetrics.CostUnit costUnit, long windowNanos,
            int windowsKept) {
        this.accounting = accounting;
        this.costUnit = costUnit;
        this.windowNanos = windowNanos;
        this.windowsKept = windowsKept;
    }

    /**
     * The history at one moment. Keys: windowSeconds, historySeconds (what the accounting keeps),
     * attainedFraction, volumesShownMax, volumesOmitted, volumes: a list of volumeId, costUnit,
     * reservedCostPerSecond, attainment (null without demand), queueDepthRequests, newestWindowEndUnixMs (null
     * before the first window closed), achievedCostPerSecond (one figure per window, oldest first, consecutive,
     * the last ending at newestWindowEndUnixMs) and achievedBytesPerSecond (the bytes the same requests moved, per
     * the same windows: on a byte-charged OSD the cost adds a positioning to each request that does not continue
     * its stream, so only the bytes compare with what a client measures); positioningChargedRequestsPerSecond and
     * outOfOrderRequestsPerSecond (object accesses that entered the queue in each window: charged a positioning,
     * arrived out of order in their stream); objectAccessRequestsTotal, positioningChargedRequestsTotal and
     * outOfOrderRequestsTotal (the same since the volume was first seen, with all object accesses beside them).
     *
     * @param nowNanos the accounting's monotonic time now
     * @param nowUnixMs the wall-clock time at {@code nowNanos}, to date the windows
     */
    public Map<String, Object> history(long nowNanos, long nowUnixMs) {
        List<VolumeSnapshot> all = new ArrayList<>(accounting.snapshot(nowNanos));
        all.sort(Comparator.comparing((VolumeSnapshot volume) -> volume.reservationCostPerSecond() == 0)
                .thenComparing(VolumeSnapshot::volumeId));
        List<VolumeSnapshot> shown = all.subList(0, Math.min(VOLUMES_SHOWN_MAX, all.size()));
        double windowSeconds = windowNanos / 1e9;
        List<Map<String, Object>> volumes = new ArrayList<>(shown.size());
        for (VolumeSnapshot volume : shown) {
            List<Window> windows = accounting.windows(volume.volumeId(), nowNanos);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("volumeId", volume.volumeId());
            row.put("costUnit", costUnit.label());
            row.put("reservedCostPerSecond", volume.reservationCostPerSecond());
            row.put("attainment", volume.attainment());
            row.put("queueDepthRequests", volume.queueDepthRequests());
            Long newestEndUnixMs = null;
            if (!windows.isEmpty()) {
                long newestEndNanos = windows.get(windows.size() - 1).startNanos() + windowNanos;
                newestEndUnixMs = nowUnixMs - Math.floorDiv(nowNanos - newestEndNanos, 1_000_000L);
            }
            row.put("newestWindowEndUnixMs", newestEndUnixMs);
            row.put("achievedCostPerSecond",
                    windows.stream().map(window -> window.achievedCost() / windowSeconds).toList());
            row.put("achievedBytesPerSecond",
                    windows.stream().map(window -> window.achievedBytes() / windowSeconds).toList());
            row.put("positioningChargedRequestsPerSecond",
                    windows.stream().map(window -> window.positioningChargedRequests() / windowSeconds).toList());
            row.put("outOfOrderRequestsPerSecond",
                    windows.stream().map(window -> window.outOfOrderRequests() / windowSeconds).toList());
            row.put("objectAccessRequestsTotal", volume.objectAccessRequestsTotal());
            row.put("positioningChargedRequestsTotal", volume.positioningChargedRequestsTotal());
            row.put("outOfOrderRequestsTotal", volume.outOfOrderRequestsTotal());
            volumes.add(row);
        }
        Map<String, Object> history = new LinkedHashMap<>();
        history.put("windowSeconds", windowSeconds);
        history.put("historySeconds", windowsKept * windowSeconds);
        history.put("attainedFraction", VolumeAccounting.ATTAINED_FRACTION);
        history.put("volumesShownMax", VOLUMES_SHOWN_MAX);
        history.put("volumesOmitted", all.size() - shown.size());
        history.put("volumes", volumes);
        return history;
    }
}
