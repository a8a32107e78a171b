package org.xtreemfs.mrc;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
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
        List<Long> replacements = server.replacementFills().counters();
        values.put("replacementsStarted", replacements.get(0));
        values.put("replacementsFilled", replacements.get(1));
        values.put("replacementsFailed", replacements.get(2));
        values.put("chainsLeftShort", replacements.get(3));
        values.put("replacementsFilling", replacements.get(4));
        List<Long> deletions = server.objectDeletions().counters();
        values.put("deletedFilesRecorded", deletions.get(0));
        values.put("deletedFilesDone", deletions.get(1));
        values.put("deleteFilesRequestsSent", deletions.get(2));
        values.put("deleteFilesRequestsFailed", deletions.get(3));
        values.put("deletedFilesWaiting", deletions.get(4));
        List<Long> recovery = server.recoveryCheck().counters();
        values.put("recoveryRounds", recovery.get(0));
        values.put("recoveryFillsResumed", recovery.get(1));
        values.put("recoveryChainsToppedUp", recovery.get(2));
        values.put("recoveryChainsShort", recovery.get(3));
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
