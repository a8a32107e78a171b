package org.xtreemfs.sim;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.LogStructuredLayout;
import org.xtreemfs.qos.routing.AccessPattern;
import org.xtreemfs.qos.routing.PatternAwareRouter;
import org.xtreemfs.qos.routing.ReadContext;
import org.xtreemfs.qos.routing.ReadStealing;
import org.xtreemfs.qos.routing.ReplicaRouter;
import org.xtreemfs.qos.routing.RoundRobinBindingRouter;
import org.xtreemfs.qos.routing.StreamClassifier;

/**
 * {@code kind=fast}: the FAST evaluation (papers.md §2). One chain of three disks (head, middle, tail), tenants
 * with one chunk each, all starting together. Every variant writes down the chain with head and middle buffered
 * (write-back) and the tail durable before the acknowledgement; variants differ only in read routing and the
 * tail's layout:
 * <ul>
 *   <li>baseline: readers bound round-robin to replicas, tail writes in place;</li>
 *   <li>pattern: random reads to the head, sequential reads to the middle, tail appends to a log;</li>
 *   <li>pattern-steal: as pattern, and a replica that would go idle takes the oldest queued read from the
 *       replica with most queued reads ({@link ReadStealing}); every replica holds every chunk at the same
 *       offsets, the tail's log holding only new writes.</li>
 * </ul>
 * Every disk queues FIFO (no QoS). Reported: per-tenant completion times. Invariant: writers finish much sooner,
 * sequential readers no later, and with stealing random readers no later than in the baseline.
 */
final class FastScenario {
    private static final long KIB = 1024;
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final String[] REPLICA_NAMES = {"head", "middle", "tail"};

    enum Variant { BASELINE, PATTERN, PATTERN_STEAL }

    enum Role { RANDOM_READ, SEQUENTIAL_READ, RANDOM_WRITE, SEQUENTIAL_WRITE }

    record TenantPlan(ScenarioConfig.TenantRef ref, Role role, Workload.Spec workload, long totalBytes,
            int queueDepth, int readerOrdinal) {}

    /** What one variant measured: completion seconds per tenant, and per replica disk busy and flushed data. */
    record VariantOutcome(Map<String, Double> completionSeconds, List<String> replicaLines, double drainedSeconds) {}

    private final ScenarioConfig config;
    private final long seed;
    private final List<TenantPlan> tenants = new ArrayList<>();

    FastScenario(ScenarioConfig config, long seed) {
        this.config = config;
        this.seed = seed;
        long chunkBytes = (long) (config.number("chunk.mib") * MIB);
        int readers = 0;
        for (ScenarioConfig.TenantRef ref : config.tenants()) {
            AccessPattern pattern = config.tenantChoice(ref, "pattern", AccessPattern.class);
            IoKind kind = config.tenantChoice(ref, "kind", IoKind.class);
            Role role = kind == IoKind.READ
                    ? (pattern == AccessPattern.RANDOM ? Role.RANDOM_READ : Role.SEQUENTIAL_READ)
                    : (pattern == AccessPattern.RANDOM ? Role.RANDOM_WRITE : Role.SEQUENTIAL_WRITE);
            Workload.Spec workload = new Workload.Spec(pattern, kind,
                    (long) (config.tenantNumber(ref, "request.kib") * KIB), ref.ordinal() * chunkBytes, chunkBytes);
            tenants.add(new TenantPlan(ref, role, workload, (long) (config.tenantNumber(ref, "bytes.mib") * MIB),
                    (int) config.tenantNumber(ref, "queue.depth"), kind == IoKind.READ ? readers++ : -1));
        }
    }

    ScenarioResult run(String scenarioName) {
        ScenarioResult result = new ScenarioResult(scenarioName);
        result.line("%s", config.string("description", ""));
        Map<Variant, VariantOutcome> outcomes = new EnumMap<>(Variant.class);
        List<List<String>> rows = new ArrayList<>();
        for (String name : config.list("variants")) {
            Variant variant = Variant.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
            VariantOutcome outcome = runVariant(variant);
            outcomes.put(variant, outcome);
            result.line("-- variant %s (all disks drained at %.1f s)", name, outcome.drainedSeconds());
            outcome.replicaLines().forEach(line -> result.line("   %s", line));
            for (Role role : Role.values()) {
                List<Double> seconds = completions(outcome, role);
                result.line("   %-16s completion s: mean %7.1f  min %7.1f  max %7.1f", role, Statistics.mean(seconds),
                        Statistics.min(seconds), Statistics.max(seconds));
            }
            for (TenantPlan tenant : tenants) {
                rows.add(List.of(scenarioName, name, tenant.ref().id(), tenant.role().name(),
                        String.format(Locale.ROOT, "%.3f", outcome.completionSeconds().get(tenant.ref().id()))));
            }
        }
        StringBuilder perTenant = new StringBuilder("per-tenant completion s (");
        perTenant.append(String.join(" / ", config.list("variants"))).append("):");
        result.line("%s", perTenant);
        for (TenantPlan tenant : tenants) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "   %-6s", tenant.ref().id()));
            for (VariantOutcome outcome : outcomes.values()) {
                line.append(String.format(Locale.ROOT, " %8.1f", outcome.completionSeconds().get(tenant.ref().id())));
            }
            result.line("%s", line);
        }
        result.table(new ScenarioResult.CsvTable(scenarioName + "-completions.csv",
                List.of("scenario", "variant", "tenant", "role", "completion_seconds"), rows));
        checkInvariants(result, outcomes);
        return result;
    }

    private List<Double> completions(VariantOutcome outcome, Role role) {
        List<Double> seconds = new ArrayList<>();
        for (TenantPlan tenant : tenants) {
            if (tenant.role() == role) {
                seconds.add(outcome.completionSeconds().get(tenant.ref().id()));
            }
        }
        return seconds;
    }

    private VariantOutcome runVariant(Variant variant) {
        Simulation simulation = new Simulation((long) config.number("events.max", 50_000_000));
        long dirtyBytesMax = (long) (config.number("writeback.dirty.mib") * MIB);
        long flushBytesMax = (long) (config.number("writeback.flush.kib") * KIB);
        long batchBytes = (long) (config.number("writeback.batch.kib") * KIB);
        int queueMax = (int) config.number("queue.fifo.requests.max");
        DeviceKind deviceKind = config.choice("device", DeviceKind.class);
        OsdNode[] replicas = new OsdNode[REPLICA_NAMES.length];
        for (int replica = 0; replica < 2; replica++) {
            replicas[replica] = new OsdNode(REPLICA_NAMES[replica], simulation, deviceKind.newDevice(),
                    new OsdQueue.Fifo(queueMax), new WriteBackBuffer(dirtyBytesMax, flushBytesMax, batchBytes,
                            (int) config.number("writeback.requests.between.batches")), null);
        }
        LogStructuredLayout log = variant == Variant.BASELINE ? null : LogStructuredLayout.empty(
                (long) (config.number("log.start.gib") * GIB),
                (long) ((config.number("log.start.gib") + config.number("log.gib")) * GIB));
        replicas[2] = new OsdNode(REPLICA_NAMES[2], simulation, deviceKind.newDevice(), new OsdQueue.Fifo(queueMax),
                null, log);
        ReplicaRouter router = variant == Variant.BASELINE ? new RoundRobinBindingRouter() : new PatternAwareRouter();
        if (variant == Variant.PATTERN_STEAL) {
            ReadStealing stealing = new ReadStealing((int) config.number("steal.queued.reads.min"));
            for (OsdNode replica : replicas) {
                replica.stealReadsWith(idle -> steal(stealing, replicas, idle));
            }
        }
        long untilNanos = (long) (config.number("time.limit.seconds") * SECOND_NANOS);
        Map<String, TenantMetrics> metrics = new LinkedHashMap<>();
        for (TenantPlan tenant : tenants) {
            TenantMetrics tenantMetrics = new TenantMetrics(tenant.ref().id());
            metrics.put(tenant.ref().id(), tenantMetrics);
            Workload workload = new Workload(tenant.workload(), seed * 1_000_003L + tenant.ref().ordinal());
            ClosedLoopClient.Sink sink = tenant.workload().kind() == IoKind.READ
                    ? readSink(tenant, replicas, router)
                    : writeSink(tenant, replicas);
            new ClosedLoopClient(simulation, workload, tenantMetrics, tenant.totalBytes(), untilNanos,
                    LongUnaryOperator.identity(), sink).start(tenant.queueDepth());
        }
        simulation.runUntil(untilNanos);
        Map<String, Double> completionSeconds = new LinkedHashMap<>();
        for (TenantPlan tenant : tenants) {
            TenantMetrics tenantMetrics = metrics.get(tenant.ref().id());
            if (tenantMetrics.bytes() < tenant.totalBytes()) {
                throw new IllegalStateException(config.source() + ": tenant " + tenant.ref().id()
                        + " did not finish within time.limit.seconds");
            }
            completionSeconds.put(tenant.ref().id(), tenantMetrics.lastCompletionNanos() / 1e9);
        }
        List<String> replicaLines = new ArrayList<>();
        for (OsdNode replica : replicas) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-6s disk busy %6.1f s:", replica.name(),
                    replica.busyNanos() / 1e9));
            for (OsdNode.Work work : OsdNode.Work.values()) {
                line.append(String.format(Locale.ROOT, " %s %d ops %.1f s,", work.name().toLowerCase(Locale.ROOT),
                        replica.operations(work), replica.busyNanos(work) / 1e9));
            }
            line.append(String.format(Locale.ROOT, " flushed %.1f MiB", replica.flushedBytes() / (double) MIB));
            replicaLines.add(line.toString());
        }
        return new VariantOutcome(completionSeconds, replicaLines, simulation.nowNanos() / 1e9);
    }

    /** Reads are classified per stream, routed by the variant's router with the replicas' current loads. */
    private ClosedLoopClient.Sink readSink(TenantPlan tenant, OsdNode[] replicas, ReplicaRouter router) {
        StreamClassifier[] classifier = {StreamClassifier.start((long) (config.number("classifier.window.kib") * KIB),
                (int) config.number("classifier.confirm"))};
        return (request, done) -> {
            classifier[0] = classifier[0].observe(request.offsetBytes(), request.lengthBytes());
            List<Integer> loads = new ArrayList<>(replicas.length);
            for (OsdNode replica : replicas) {
                loads.add(replica.outstanding());
            }
            int replica = router.readReplica(new ReadContext(tenant.readerOrdinal(), classifier[0].pattern(), loads));
            submitDurable(replicas[replica], tenant, request, done);
            for (OsdNode peer : replicas) {
                if (peer != replicas[replica]) {
                    peer.poke();
                }
            }
        };
    }

    private static IoOp steal(ReadStealing stealing, OsdNode[] replicas, OsdNode idle) {
        List<Integer> queuedReads = new ArrayList<>(replicas.length);
        int idleIndex = -1;
        for (int replica = 0; replica < replicas.length; replica++) {
            queuedReads.add(replicas[replica].queuedReads());
            idleIndex = replicas[replica] == idle ? replica : idleIndex;
        }
        var victim = stealing.victimFor(idleIndex, queuedReads);
        return victim.isPresent() ? replicas[victim.getAsInt()].giveUpOldestRead() : null;
    }

    /** Writes enter at the head and go down the chain; the tail's durable write acknowledges. */
    private ClosedLoopClient.Sink writeSink(TenantPlan tenant, OsdNode[] replicas) {
        return (request, done) -> replicas[0].bufferWrite(request,
                () -> replicas[1].bufferWrite(request, () -> submitDurable(replicas[2], tenant, request, done)));
    }

    /** A write here is synced: the device's own host write-back (if its model has one) must not absorb it. */
    private void submitDurable(OsdNode replica, TenantPlan tenant, IoRequest request, IoOp.Completion done) {
        IoRequest durable = request.withSynced(request.kind() == IoKind.WRITE);
        if (!replica.submit(new IoOp(tenant.ref().id(), durable, request.lengthBytes(), done)).accepted()) {
            throw new IllegalStateException(config.source() + ": " + replica.name() + " rejected a request of "
                    + tenant.ref().id() + "; raise queue.fifo.requests.max above the total queue depth");
        }
    }

    private void checkInvariants(ScenarioResult result, Map<Variant, VariantOutcome> outcomes) {
        VariantOutcome baseline = outcomes.get(Variant.BASELINE);
        if (baseline == null) {
            throw new IllegalArgumentException(config.source() + ": the FAST invariants need variant baseline");
        }
        double gainMin = config.number("invariant.writer.gain.min");
        double slowdownMax = config.number("invariant.reader.slowdown.max");
        for (Variant variant : List.of(Variant.PATTERN, Variant.PATTERN_STEAL)) {
            VariantOutcome outcome = outcomes.get(variant);
            if (outcome == null) {
                continue;
            }
            String name = variant.name().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Role writer : List.of(Role.RANDOM_WRITE, Role.SEQUENTIAL_WRITE)) {
                double gain = Statistics.mean(completions(baseline, writer)) / Statistics.mean(completions(outcome,
                        writer));
                result.check(name + ": " + writer + " tenants finish much sooner", gain >= gainMin,
                        "baseline/" + name + " mean completion = %.1fx (needs >= %.1fx)", gain, gainMin);
            }
            double sequentialRatio = Statistics.mean(completions(outcome, Role.SEQUENTIAL_READ))
                    / Statistics.mean(completions(baseline, Role.SEQUENTIAL_READ));
            result.check(name + ": sequential readers equal or better", sequentialRatio <= slowdownMax,
                    name + "/baseline mean completion = %.2f (needs <= %.2f)", sequentialRatio, slowdownMax);
            List<Double> sequential = completions(outcome, Role.SEQUENTIAL_READ);
            double spread = Statistics.max(sequential) / Statistics.min(sequential);
            result.check(name + ": sequential readers finish at comparable times", spread <= config.number(
                    "invariant.equal.spread.max"), "slowest/fastest = %.2f", spread);
        }
        VariantOutcome stealing = outcomes.get(Variant.PATTERN_STEAL);
        if (stealing != null) {
            List<Double> random = completions(stealing, Role.RANDOM_READ);
            List<Double> baselineRandom = completions(baseline, Role.RANDOM_READ);
            double meanRatio = Statistics.mean(random) / Statistics.mean(baselineRandom);
            double worstRatio = Statistics.max(random) / Statistics.max(baselineRandom);
            double randomSlowdownMax = config.number("invariant.random.reader.slowdown.max");
            result.check("pattern-steal: random readers do not lose", meanRatio <= randomSlowdownMax
                    && worstRatio <= 1.0, "pattern-steal/baseline mean completion = %.2f (needs <= %.2f), slowest "
                    + "= %.2f (needs <= 1), spread slowest/fastest %.2f vs baseline %.2f", meanRatio,
                    randomSlowdownMax, worstRatio, Statistics.max(random) / Statistics.min(random),
                    Statistics.max(baselineRandom) / Statistics.min(baselineRandom));
        }
        VariantOutcome pattern = outcomes.get(Variant.PATTERN);
        if (pattern != null) {
            result.line("pattern without stealing: random readers at %.2fx the baseline mean completion",
                    Statistics.mean(completions(pattern, Role.RANDOM_READ))
                            / Statistics.mean(completions(baseline, Role.RANDOM_READ)));
        }
    }
}
