package org.xtreemfs.mrc;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.status.StatusPageServer;

/**
 * The MRC's HTTP status page ({@code /} as text, {@code /status.json}, {@code /metrics}): identity, DIR
 * heartbeats, the metadata queue, per-procedure counters, the known OSDs, the volumes and each volume's
 * attainment summed over its OSDs ({@code volumeAttainment}; the Prometheus gauges carry the same sums).
 */
final class MrcStatusPage {
    private MrcStatusPage() {}

    static StatusPageServer start(MrcServer server, InetSocketAddress address, PrometheusRegistry metrics)
            throws IOException {
        return new StatusPageServer(address, () -> text(server), () -> values(server), metrics,
                server.config().statusLimits());
    }

    static Map<String, Object> values(MrcServer server) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("service", "mrc");
        values.put("uuid", server.uuid());
        values.put("address", String.valueOf(server.address()));
        values.put("dir", server.config().dirAddress().toString());
        values.put("heartbeatsSent", server.dirRegistration().heartbeatsSent());
        values.put("heartbeatsFailed", server.dirRegistration().heartbeatsFailed());
        StageMetrics metadata = server.metadataStage().metrics();
        values.put("health", StageMetrics.health(metadata));
        values.put("metadataQueueLength", metadata.queueLength());
        values.put("metadataQueueCapacity", metadata.queueCapacity());
        values.put("metadataHandled", metadata.handledCount());
        values.put("metadataRejected", metadata.rejectedCount());
        values.put("outcomesRecorded", server.outcomes().records());
        values.put("outcomesReplayed", server.outcomes().replays());
        RocksKvStore.Counts store = server.storeCounts();
        values.put("storeGets", store.gets());
        values.put("storeBatches", store.batches());
        values.put("storeSyncedBatches", store.syncedBatches());
        values.put("storeIterators", store.iterators());
        values.putAll(server.replacementFills().counters());
        values.putAll(server.objectDeletions().counters());
        values.putAll(server.recoveryCheck().counters());
        Map<String, Object> operations = new LinkedHashMap<>();
        server.counters().snapshot().forEach((procedure, counts) -> operations.put(procedure,
                Map.of("calls", counts[0], "errors", counts[1])));
        values.put("operations", operations);
        values.put("osds", server.osdDirectory().cached().stream().map(osd -> osd.uuid() + " free="
                + osd.freeBytes() + " total=" + osd.totalBytes() + " load=" + osd.loadPercent() + "%").toList());
        values.put("volumes", server.volumeSummary());
        values.put("reservationLedger", server.namespaceLedgerSummary());
        values.put("volumeAttainment", server.volumeAttainment().status());
        return values;
    }

    static String text(MrcServer server) {
        StringBuilder text = new StringBuilder("XtreemFS-QoS MRC\n\n");
        values(server).forEach((key, value) -> text.append(key).append(": ").append(value).append('\n'));
        return text.toString();
    }
}
