package org.xtreemfs.mrc;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;

/**
 * Presents the per-volume attainment sums ({@code mrc.registry.VolumeAttainmentSum}): as maps for the status
 * page's JSON and as Prometheus gauges labelled {@code volume} (the id, as the OSDs' metrics label it),
 * {@code volume_name} and {@code cost_unit}. A scrape reads every gauge in turn; they share one sum computed
 * at most {@link #REUSE_NANOS} ago (the figures change only with OSD heartbeats, seconds apart).
 */
final class VolumeAttainmentMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(VolumeAttainmentMetrics.class);
    static final long REUSE_NANOS = 1_000_000_000L;

    private final Callable<List<VolumeAttainment>> sums;
    private final LongSupplier monotonicNanos;
    private List<VolumeAttainment> last;
    private long lastNanos;

    VolumeAttainmentMetrics(Callable<List<VolumeAttainment>> sums, LongSupplier monotonicNanos) {
        this.sums = sums;
        this.monotonicNanos = monotonicNanos;
    }

    /** The sums now, or as they were up to {@link #REUSE_NANOS} ago; the last ones if they cannot be had. */
    synchronized List<VolumeAttainment> current() {
        long nowNanos = monotonicNanos.getAsLong();
        if (last == null || nowNanos - lastNanos >= REUSE_NANOS || nowNanos < lastNanos) {
            try {
                last = sums.call();
                lastNanos = nowNanos;
            } catch (Exception e) {
                LOG.warn("MRC: cannot sum the volumes' attainment now: {}", e.toString());
                return last == null ? List.of() : last;
            }
        }
        return last;
    }

    /**
     * One map per volume: volumeId, volumeName, costUnit, reservedCostPerSecond, achievedCostPerSecond,
     * queueDepthRequests, latencyP99Ms and attainment (null when undefined), and osds: per OSD uuid, available,
     * lastHeartbeatMs, reserved, achieved, queue depth, windowsWithDemand, windowsMet; placedOsdsNotReporting.
     */
    List<Map<String, Object>> status() {
        return current().stream().map(VolumeAttainmentMetrics::row).toList();
    }

    private static Map<String, Object> row(VolumeAttainment volume) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("volumeId", volume.getVolumeId());
        row.put("volumeName", volume.getVolumeName());
        row.put("costUnit", volume.getCostUnit());
        row.put("reservedCostPerSecond", volume.getReservedCostPerSecond());
        row.put("achievedCostPerSecond", volume.getAchievedCostPerSecond());
        row.put("queueDepthRequests", volume.getQueueDepthRequests());
        row.put("latencyP99Ms", volume.hasLatencyP99Ms() ? volume.getLatencyP99Ms() : null);
        row.put("attainment", volume.hasAttainment() ? volume.getAttainment() : null);
        row.put("osds", volume.getOsdsList().stream().map(osd -> {
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("uuid", osd.getOsdUuid());
            figures.put("available", osd.getAvailable());
            figures.put("lastHeartbeatMs", osd.getLastHeartbeatMs());
            figures.put("reservedCostPerSecond", osd.getFigures().getReservedCostPerSecond());
            figures.put("achievedCostPerSecond", osd.getFigures().getAchievedCostPerSecond());
            figures.put("queueDepthRequests", osd.getFigures().getQueueDepthRequests());
            figures.put("windowsWithDemand", osd.getFigures().getWindowsWithDemand());
            figures.put("windowsMet", osd.getFigures().getWindowsMet());
            return figures;
        }).toList());
        row.put("placedOsdsNotReporting", volume.getPlacedOsdsNotReportingList());
        return row;
    }

    void register(PrometheusRegistry registry) {
        gauge(registry, "xtreemfs_mrc_volume_reserved_cost_per_second",
                "Sum of the volume's shares on its available OSDs, in their cost unit per second",
                volume -> volume.getReservedCostPerSecond());
        gauge(registry, "xtreemfs_mrc_volume_achieved_cost_per_second",
                "Sum over the volume's available OSDs of the cost answered per second, over each OSD's last"
                        + " heartbeat period", VolumeAttainment::getAchievedCostPerSecond);
        gauge(registry, "xtreemfs_mrc_volume_queue_depth_requests",
                "Sum over the volume's available OSDs of its requests waiting in their QoS queues",
                volume -> volume.getQueueDepthRequests());
        gauge(registry, "xtreemfs_mrc_volume_latency_p99_seconds",
                "The worst 99th percentile latency (queue wait + service) over the volume's available OSDs",
                volume -> volume.hasLatencyP99Ms() ? volume.getLatencyP99Ms() / 1000 : Double.NaN);
        gauge(registry, "xtreemfs_mrc_volume_attainment_ratio",
                "The worst OSD's fraction of recent 1-s windows with demand in which it gave the volume >= 90 %"
                        + " of its share", volume -> volume.hasAttainment() ? volume.getAttainment() : Double.NaN);
    }

    /** A gauge per volume; volumes whose figure is undefined (NaN) are left out. */
    private void gauge(PrometheusRegistry registry, String name, String help,
            ToDoubleFunction<VolumeAttainment> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("volume", "volume_name", "cost_unit")
                .callback(callback -> {
                    for (VolumeAttainment volume : current()) {
                        double figure = value.applyAsDouble(volume);
                        if (!Double.isNaN(figure)) {
                            callback.call(figure, volume.getVolumeId(), volume.getVolumeName(),
                                    volume.getCostUnit());
                        }
                    }
                })
                .register(registry);
    }
}
