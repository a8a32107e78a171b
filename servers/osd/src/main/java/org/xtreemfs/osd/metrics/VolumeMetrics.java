package org.xtreemfs.osd.metrics;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.xtreemfs.interfaces.common.OsdVolumeAttainment;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.osd.metrics.VolumeAccounting.VolumeSnapshot;

/**
 * Presents the {@link VolumeAccounting} of this OSD: as a list of per-volume maps for the status page's JSON
 * ({@link #status()}, the shape the MRC's summation and {@code xtfsutil} read) and as Prometheus metrics with a
 * {@code volume} label ({@link #register}). Rates are per second: the accounting's windows are
 * {@code windowNanos} long. Figures in the OSD's cost unit name it ({@code costUnit} / label
 * {@code cost_unit}): bytes on sequential and best-effort OSDs, 4 KiB-equivalent I/Os on random ones.
 */
public final class VolumeMetrics {
    /** The cost unit of an OSD's queue, as ShareRule charges it. */
    public enum CostUnit {
        BYTES("bytes"), FOUR_KIB_IOS("4KiB-io");

        private final String label;

        CostUnit(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private static final double MIB = 1024.0 * 1024.0;
    /**
     * A scrape reads every metric's callback in turn; they share one snapshot taken at most this long ago, so a
     * scrape costs one pass over the accounting, not one per metric, and its figures are consistent.
     */
    static final long SNAPSHOT_REUSE_NANOS = 100_000_000L;

    private final VolumeAccounting accounting;
    private final LongSupplier monotonicNanos;
    private final CostUnit costUnit;
    private final double windowSeconds;
    private List<VolumeSnapshot> lastSnapshot;
    private long lastSnapshotNanos;

    /**
     * @param monotonicNanos the time the accounting runs on (the OSD clock's monotonic time)
     * @param windowNanos the accounting's window length
     */
    public VolumeMetrics(VolumeAccounting accounting, LongSupplier monotonicNanos, CostUnit costUnit,
            long windowNanos) {
        this.accounting = accounting;
        this.monotonicNanos = monotonicNanos;
        this.costUnit = costUnit;
        this.windowSeconds = windowNanos / 1e9;
    }

    public CostUnit costUnit() {
        return costUnit;
    }

    /** The accounting now, or as it was up to {@link #SNAPSHOT_REUSE_NANOS} ago. */
    public synchronized List<VolumeSnapshot> snapshot() {
        long nowNanos = monotonicNanos.getAsLong();
        if (lastSnapshot == null || nowNanos - lastSnapshotNanos >= SNAPSHOT_REUSE_NANOS
                || nowNanos < lastSnapshotNanos) {
            lastSnapshot = accounting.snapshot(nowNanos);
            lastSnapshotNanos = nowNanos;
        }
        return lastSnapshot;
    }

    /**
     * One map per tracked volume, by volume id. Keys: volumeId, costUnit, reservedCostPerSecond, and
     * reservedMiBPerSecond (byte unit) or reservedIops (I/O unit); achievedCostPerSecond,
     * achievedBytesPerSecond, achievedRequestsPerSecond (last complete window); queueDepthRequests,
     * outstandingRequests (queued or in storage); latencyP50Ms, latencyP99Ms, latencySamples (submit to answer,
     * over the last samples kept; null without samples); windowsWithDemand, windowsMet, attainment (met / with
     * demand over the kept windows; null without demand or reservation); windowsWithDemandTotal,
     * windowsMetTotal (since first seen); recentAchievedCostPerSecond (oldest first, the last minute);
     * objectAccessRequestsTotal, positioningChargedRequestsTotal, outOfOrderRequestsTotal (object reads and writes
     * queued since first seen, those charged a positioning, those that arrived out of order in their stream).
     */
    public List<Map<String, Object>> status() {
        List<Map<String, Object>> volumes = new ArrayList<>();
        for (VolumeSnapshot volume : snapshot()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("volumeId", volume.volumeId());
            row.put("costUnit", costUnit.label());
            row.put("reservedCostPerSecond", volume.reservationCostPerSecond());
            if (costUnit == CostUnit.BYTES) {
                row.put("reservedMiBPerSecond", volume.reservationCostPerSecond() / MIB);
            } else {
                row.put("reservedIops", volume.reservationCostPerSecond());
            }
            row.put("achievedCostPerSecond", perSecond(volume.achievedCostPerWindow()));
            row.put("achievedBytesPerSecond", perSecond(volume.achievedBytesPerWindow()));
            row.put("achievedRequestsPerSecond", perSecond(volume.achievedRequestsPerWindow()));
            row.put("queueDepthRequests", volume.queueDepthRequests());
            row.put("outstandingRequests", volume.outstandingRequests());
            row.put("latencyP50Ms", volume.latencyP50Seconds() * 1000);
            row.put("latencyP99Ms", volume.latencyP99Seconds() * 1000);
            row.put("latencySamples", volume.latencySamples());
            row.put("windowsWithDemand", volume.windowsWithDemand());
            row.put("windowsMet", volume.windowsMet());
            row.put("attainment", volume.attainment());
            row.put("windowsWithDemandTotal", volume.windowsWithDemandTotal());
            row.put("windowsMetTotal", volume.windowsMetTotal());
            row.put("recentAchievedCostPerSecond",
                    volume.recentAchievedCostPerWindow().stream().map(this::perSecond).toList());
            row.put("objectAccessRequestsTotal", volume.objectAccessRequestsTotal());
            row.put("positioningChargedRequestsTotal", volume.positioningChargedRequestsTotal());
            row.put("outOfOrderRequestsTotal", volume.outOfOrderRequestsTotal());
            volumes.add(row);
        }
        return volumes;
    }

    /**
     * The compact per-volume summary the DIR heartbeat carries (and the MRC sums): at most {@code volumesMax}
     * volumes, reserved ones first, then by achieved cost, then by id; the rest only counted. Achieved is the
     * mean of the last {@code averagedWindows} closed windows (the heartbeat period, so no window between two
     * heartbeats goes unseen), fewer if the volume has fewer.
     */
    public OsdVolumeAttainment heartbeatReport(int volumesMax, int averagedWindows) {
        if (volumesMax < 0 || averagedWindows < 1) {
            throw new IllegalArgumentException("heartbeat report needs volumesMax >= 0 and averagedWindows >= 1, got "
                    + volumesMax + ", " + averagedWindows);
        }
        List<VolumeAttainmentReport> reports = new ArrayList<>();
        for (VolumeSnapshot volume : snapshot()) {
            List<Long> recent = volume.recentAchievedCostPerWindow();
            List<Long> averaged = recent.subList(Math.max(0, recent.size() - averagedWindows), recent.size());
            double achieved = averaged.isEmpty() ? 0
                    : perSecond(averaged.stream().mapToLong(Long::longValue).sum()) / averaged.size();
            VolumeAttainmentReport.Builder report = VolumeAttainmentReport.newBuilder()
                    .setVolumeId(volume.volumeId())
                    .setReservedCostPerSecond(volume.reservationCostPerSecond())
                    .setAchievedCostPerSecond(achieved)
                    .setQueueDepthRequests(volume.queueDepthRequests())
                    .setWindowsWithDemand(volume.windowsWithDemand())
                    .setWindowsMet(volume.windowsMet());
            if (!Double.isNaN(volume.latencyP99Seconds())) {
                report.setLatencyP99Ms(volume.latencyP99Seconds() * 1000);
            }
            reports.add(report.build());
        }
        reports.sort(Comparator.comparing((VolumeAttainmentReport report) -> report.getReservedCostPerSecond() == 0)
                .thenComparing(VolumeAttainmentReport::getAchievedCostPerSecond, Comparator.reverseOrder())
                .thenComparing(VolumeAttainmentReport::getVolumeId));
        int reported = Math.min(volumesMax, reports.size());
        return OsdVolumeAttainment.newBuilder()
                .setCostUnit(costUnit.label())
                .addAllVolumes(reports.subList(0, reported))
                .setVolumesOmitted(reports.size() - reported)
                .setAveragedWindows(averagedWindows)
                .build();
    }

    private double perSecond(long perWindow) {
        return perWindow / windowSeconds;
    }

    /** Registers the per-volume metrics; each scrape reads the accounting at that time. */
    public void register(PrometheusRegistry registry) {
        gauge(registry, "xtreemfs_osd_volume_reserved_cost_per_second",
                "Reservation of the volume on this OSD, in the OSD's cost unit per second", true,
                volume -> volume.reservationCostPerSecond());
        gauge(registry, "xtreemfs_osd_volume_achieved_cost_per_second",
                "Cost of the volume's requests answered in the last complete 1-s window", true,
                volume -> perSecond(volume.achievedCostPerWindow()));
        gauge(registry, "xtreemfs_osd_volume_achieved_bytes_per_second",
                "Payload bytes of the volume's requests answered in the last complete 1-s window", false,
                volume -> perSecond(volume.achievedBytesPerWindow()));
        gauge(registry, "xtreemfs_osd_volume_achieved_requests_per_second",
                "The volume's requests answered in the last complete 1-s window", false,
                volume -> perSecond(volume.achievedRequestsPerWindow()));
        gauge(registry, "xtreemfs_osd_volume_queue_depth_requests",
                "The volume's requests waiting in the OSD's QoS queue", false, volume -> volume.queueDepthRequests());
        gauge(registry, "xtreemfs_osd_volume_latency_p50_seconds",
                "Median time from entering the QoS queue to the answer (queue wait + service), recent requests",
                false, VolumeSnapshot::latencyP50Seconds);
        gauge(registry, "xtreemfs_osd_volume_latency_p99_seconds",
                "99th percentile time from entering the QoS queue to the answer, recent requests", false,
                VolumeSnapshot::latencyP99Seconds);
        gauge(registry, "xtreemfs_osd_volume_attainment_ratio",
                "Fraction of recent 1-s windows with demand in which the volume received >= 90 % of its "
                        + "reservation (or of what it asked, if less)", false, VolumeSnapshot::attainment);
        counter(registry, "xtreemfs_osd_volume_windows_with_demand",
                "1-s windows in which the reserved volume had demand", VolumeSnapshot::windowsWithDemandTotal);
        counter(registry, "xtreemfs_osd_volume_windows_met",
                "1-s windows in which the reserved volume received >= 90 % of its reservation",
                VolumeSnapshot::windowsMetTotal);
        counter(registry, "xtreemfs_osd_volume_positioning_charged_requests",
                "The volume's object reads and writes charged a positioning (not continuing their file's stream)",
                VolumeSnapshot::positioningChargedRequestsTotal);
        counter(registry, "xtreemfs_osd_volume_out_of_order_requests",
                "The volume's object reads and writes that arrived out of order within their file's stream",
                VolumeSnapshot::outOfOrderRequestsTotal);
    }

    /** A gauge per volume; volumes whose figure is undefined (NaN: no samples, no demand) are left out. */
    private void gauge(PrometheusRegistry registry, String name, String help, boolean withCostUnit,
            ToDoubleFunction<VolumeSnapshot> value) {
        GaugeWithCallback.builder().name(name).help(help)
                .labelNames(withCostUnit ? new String[] {"volume", "cost_unit"} : new String[] {"volume"})
                .callback(callback -> {
                    for (VolumeSnapshot volume : snapshot()) {
                        double figure = value.applyAsDouble(volume);
                        if (Double.isNaN(figure)) {
                            continue;
                        }
                        if (withCostUnit) {
                            callback.call(figure, volume.volumeId(), costUnit.label());
                        } else {
                            callback.call(figure, volume.volumeId());
                        }
                    }
                })
                .register(registry);
    }

    private void counter(PrometheusRegistry registry, String name, String help,
            ToDoubleFunction<VolumeSnapshot> value) {
        CounterWithCallback.builder().name(name).help(help).labelNames("volume")
                .callback(callback -> {
                    for (VolumeSnapshot volume : snapshot()) {
                        callback.call(value.applyAsDouble(volume), volume.volumeId());
                    }
                })
                .register(registry);
    }
}
