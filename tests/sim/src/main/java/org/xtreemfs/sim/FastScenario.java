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
    record VariantOutcome(Map<String, Double> completionSeconds, List<String> replicaLines, double drainedSeconds,
            List<String> timelineLines, List<Double> busySecondsPerReplica) {}

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
            // Chunks lie side by side unless a tenant's chunk.start.gib places it (on every replica's disk alike):
            // tests/bench/fast places each chunk where the OSD's emulated disk has that tenant's file.
            String chunkStartKey = config.tenantKey(ref, "chunk.start.gib");
            long chunkStartBytes = config.has(chunkStartKey) ? (long) (config.number(chunkStartKey) * GIB)
                    : ref.ordinal() * chunkBytes;
            if (chunkStartBytes < 0) {
                throw new IllegalArgumentException(config.source() + ": key " + chunkStartKey + " must be >= 0, was "
                        + config.number(chunkStartKey));
            }
            Workload.Spec workload = new Workload.Spec(pattern, kind,
                    (long) (config.tenantNumber(ref, "request.kib") * KIB), chunkStartBytes, chunkBytes);
            tenants.add(new TenantPlan(ref, role, workload, (long) (config.tenantNumber(ref, "bytes.mib") * MIB),
                    (int) config.tenantNumber(ref, "queue.depth"), kind == IoKind.READ ? readers++ : -1));
        }
    }

    ScenarioResult run(String scenarioName) {
        ScenarioResult result = new ScenarioResult(scenarioName);
        result.line("%s", config.string("description", ""));
        List<List<String>> rows = new ArrayList<>();
        for (int queueDepth : queueDepths()) {
            runAtDepth(result, scenarioName, queueDepth, rows);
        }
        result.table(new ScenarioResult.CsvTable(scenarioName + "-completions.csv",
                List.of("scenario", "queue_depth", "variant", "tenant", "role", "completion_seconds"), rows));
        return result;
    }

    /**
     * {@code queue.depths=1,4,16}: the whole comparison (every variant, every invariant) once per depth, each
     * tenant keeping that many requests outstanding; without the key once, at each tenant's {@code queue.depth}
     * (reported as depth 0).
     */
    private List<Integer> queueDepths() {
        if (!config.has("queue.depths")) {
            return List.of(0);
        }
        List<Integer> depths = new ArrayList<>();
        for (String item : config.list("queue.depths")) {
            try {
                depths.add(Integer.parseInt(item));
            } catch (NumberFormatException notANumber) {
                depths.add(-1);
            }
            if (depths.get(depths.size() - 1) < 1) {
                throw new IllegalArgumentException(config.source() + ": key queue.depths takes whole numbers >= 1, "
                        + "was '" + item + "'");
            }
        }
        return depths;
    }

    private void runAtDepth(ScenarioResult result, String scenarioName, int queueDepth, List<List<String>> rows) {
        String prefix = queueDepth == 0 ? "" : "depth " + queueDepth + ": ";
        Map<Variant, VariantOutcome> outcomes = new EnumMap<>(Variant.class);
        for (String name : config.list("variants")) {
            Variant variant = Variant.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
            VariantOutcome outcome = runVariant(variant, queueDepth);
            outcomes.put(variant, outcome);
            result.line("-- %svariant %s (all disks drained at %.1f s)", prefix, name, outcome.drainedSeconds());
            outcome.replicaLines().forEach(line -> result.line("   %s", line));
            outcome.timelineLines().forEach(line -> result.line("   %s", line));
            for (Role role : Role.values()) {
                List<Double> seconds = completions(outcome, role);
                result.line("   %-16s completion s: mean %7.1f  min %7.1f  max %7.1f", role, Statistics.mean(seconds),
                        Statistics.min(seconds), Statistics.max(seconds));
            }
            for (TenantPlan tenant : tenants) {
                rows.add(List.of(scenarioName, Integer.toString(queueDepth), name, tenant.ref().id(),
                        tenant.role().name(), String.format(Locale.ROOT, "%.3f",
                                outcome.completionSeconds().get(tenant.ref().id()))));
            }
        }
        StringBuilder perTenant = new StringBuilder(prefix + "per-tenant completion s (");
        perTenant.append(String.join(" / ", config.list("variants"))).append("):");
        result.line("%s", perTenant);
        for (TenantPlan tenant : tenants) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "   %-6s", tenant.ref().id()));
            for (VariantOutcome outcome : outcomes.values()) {
                line.append(String.format(Locale.ROOT, " %8.1f", outcome.completionSeconds().get(tenant.ref().id())));
            }
            result.line("%s", line);
        }
        checkInvariants(result, outcomes, prefix);
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

    /** @param queueDepth requests each tenant keeps outstanding, 0 for each tenant's own {@code queue.depth} */
    private VariantOutcome runVariant(Variant variant, int queueDepth) {
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
                    LongUnaryOperator.identity(), sink).start(queueDepth > 0 ? queueDepth : tenant.queueDepth());
        }
        List<String> timeline = new ArrayList<>();
        if (config.has("report.every.seconds")) {
            long everyNanos = (long) (config.number("report.every.seconds") * SECOND_NANOS);
            sampleTimeline(simulation, replicas, metrics, everyNanos, new long[replicas.length][OsdNode.Work.values()
                    .length], timeline);
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
        List<Double> busySeconds = new ArrayList<>();
        for (OsdNode replica : replicas) {
            busySeconds.add(replica.busyNanos() / 1e9);
        }
        return new VariantOutcome(completionSeconds, replicaLines, simulation.nowNanos() / 1e9, timeline, busySeconds);
    }

    /**
     * {@code report.every.seconds}: per interval, each replica's device operations by kind of work and its dirty
     * write-back, and each class's bytes done; stops once every tenant has finished (so the drain time is kept).
     */
    private void sampleTimeline(Simulation simulation, OsdNode[] replicas, Map<String, TenantMetrics> metrics,
            long everyNanos, long[][] operationsBefore, List<String> timeline) {
        simulation.schedule(simulation.nowNanos() + everyNanos, () -> {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "t=%6.1f s", simulation.nowNanos() / 1e9));
            for (int replica = 0; replica < replicas.length; replica++) {
                line.append(String.format(Locale.ROOT, " | %s", replicas[replica].name()));
                for (OsdNode.Work work : OsdNode.Work.values()) {
                    long operations = replicas[replica].operations(work);
                    line.append(String.format(Locale.ROOT, " %s %d", work.name().toLowerCase(Locale.ROOT).charAt(0)
                            + (work == OsdNode.Work.STOLEN_READ ? "s" : ""), operations
                            - operationsBefore[replica][work.ordinal()]));
                    operationsBefore[replica][work.ordinal()] = operations;
                }
                line.append(String.format(Locale.ROOT, " dirty %.0f MiB", replicas[replica].pendingWriteBackBytes()
                        / (double) MIB));
            }
            boolean unfinished = false;
            for (Role role : Role.values()) {
                long doneBytes = 0;
                long totalBytes = 0;
                for (TenantPlan tenant : tenants) {
                    if (tenant.role() == role) {
                        doneBytes += metrics.get(tenant.ref().id()).bytes();
                        totalBytes += tenant.totalBytes();
                    }
                }
                unfinished |= doneBytes < totalBytes;
                line.append(String.format(Locale.ROOT, " | %s %.0f%%", role.name().toLowerCase(Locale.ROOT),
                        100.0 * doneBytes / totalBytes));
            }
            timeline.add(line.toString());
            if (unfinished) {
                sampleTimeline(simulation, replicas, metrics, everyNanos, operationsBefore, timeline);
            }
        });
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
            submitDurable(replicas[replica], tenant, request, done, ReadStealing.mayStealReadOf(classifier[0]));
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
                () -> replicas[1].bufferWrite(request, () -> submitDurable(replicas[2], tenant, request, done, false)));
    }

    /** A write here is synced: the device's own host write-back (if its model has one) must not absorb it. */
    private void submitDurable(OsdNode replica, TenantPlan tenant, IoRequest request, IoOp.Completion done,
            boolean stealable) {
        IoRequest durable = request.withSynced(request.kind() == IoKind.WRITE);
        if (!replica.submit(new IoOp(tenant.ref().id(), durable, request.lengthBytes(), done, stealable)).accepted()) {
            throw new IllegalStateException(config.source() + ": " + replica.name() + " rejected a request of "
                    + tenant.ref().id() + "; raise queue.fifo.requests.max above the total queue depth");
        }
    }

    private void checkInvariants(ScenarioResult result, Map<Variant, VariantOutcome> outcomes, String prefix) {
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
                result.check(prefix + name + ": " + writer + " tenants finish much sooner", gain >= gainMin,
                        "baseline/" + name + " mean completion = %.1fx (needs >= %.1fx)", gain, gainMin);
            }
            double sequentialRatio = Statistics.mean(completions(outcome, Role.SEQUENTIAL_READ))
                    / Statistics.mean(completions(baseline, Role.SEQUENTIAL_READ));
            result.check(prefix + name + ": sequential readers equal or better", sequentialRatio <= slowdownMax,
                    name + "/baseline mean completion = %.2f (needs <= %.2f)", sequentialRatio, slowdownMax);
            List<Double> sequential = completions(outcome, Role.SEQUENTIAL_READ);
            double spread = Statistics.max(sequential) / Statistics.min(sequential);
            result.check(prefix + name + ": sequential readers finish at comparable times", spread <= config.number(
                    "invariant.equal.spread.max"), "slowest/fastest = %.2f", spread);
        }
        VariantOutcome stealing = outcomes.get(Variant.PATTERN_STEAL);
        if (stealing != null) {
            checkRandomReadersWithStealing(result, baseline, stealing, prefix);
        }
        VariantOutcome pattern = outcomes.get(Variant.PATTERN);
        if (stealing != null && pattern != null) {
            // Stealing moves reads only to a replica that would otherwise idle; no class may pay for it. Checked for
            // every class: the readers whose replica steals or is stolen from, and the writers who share the disks.
            double hurtMax = config.number("invariant.steal.class.slowdown.max");
            for (Role role : Role.values()) {
                double ratio = Statistics.mean(completions(stealing, role)) / Statistics.mean(completions(pattern,
                        role));
                result.check(prefix + "pattern-steal: " + role + " tenants no later than without stealing",
                        ratio <= hurtMax, "pattern-steal/pattern mean completion = %.2f (needs <= %.2f)", ratio,
                        hurtMax);
            }
        }
        if (pattern != null) {
            result.line("%spattern without stealing: random readers at %.2fx the baseline mean completion", prefix,
                    Statistics.mean(completions(pattern, Role.RANDOM_READ))
                            / Statistics.mean(completions(baseline, Role.RANDOM_READ)));
        }
    }

    /**
     * With stealing the random readers finish together (FAST's "equal" times). Their class is done when its slowest
     * member is, which must be no later than the baseline's slowest. The class's mean may be at most
     * {@code invariant.random.reader.slowdown.max} times the baseline's mean, unless the class was work-bound: every
     * replica's disk busy for at least {@code invariant.random.reader.work.bound.busy.min} of the time until the
     * class's last read completed. Then no disk could have served a read sooner, and a lower mean needs some
     * readers finished before others (the baseline's spread) or the writers' write-back postponed (the writers'
     * gain); tests/sim/README.md has the argument and the figures.
     */
    private void checkRandomReadersWithStealing(ScenarioResult result, VariantOutcome baseline,
            VariantOutcome stealing, String prefix) {
        List<Double> random = completions(stealing, Role.RANDOM_READ);
        List<Double> baselineRandom = completions(baseline, Role.RANDOM_READ);
        double meanRatio = Statistics.mean(random) / Statistics.mean(baselineRandom);
        double worstRatio = Statistics.max(random) / Statistics.max(baselineRandom);
        double randomSlowdownMax = config.number("invariant.random.reader.slowdown.max");
        double busyMin = config.number("invariant.random.reader.work.bound.busy.min");
        double classSeconds = Statistics.max(random);
        // A lower bound on each disk's busy time before the class finished: what it did in all, less everything
        // after (at most the time from then until the disks drained).
        double leastBusyFraction = Double.MAX_VALUE;
        for (double busySeconds : stealing.busySecondsPerReplica()) {
            double busyBefore = busySeconds - (stealing.drainedSeconds() - classSeconds);
            leastBusyFraction = Math.min(leastBusyFraction, busyBefore / classSeconds);
        }
        boolean workBound = leastBusyFraction >= busyMin;
        result.check(prefix + "pattern-steal: random readers do not lose", worstRatio <= 1.0
                && (meanRatio <= randomSlowdownMax || workBound), "pattern-steal/baseline slowest = %.2f (needs <= 1), "
                + "mean completion = %.2f (needs <= %.2f unless work-bound), every disk busy >= %.3f of the class's "
                + "%.1f s (work-bound at >= %.2f: %s), spread slowest/fastest %.2f vs baseline %.2f", worstRatio,
                meanRatio, randomSlowdownMax, leastBusyFraction, classSeconds, busyMin, workBound ? "yes" : "no",
                Statistics.max(random) / Statistics.min(random), Statistics.max(baselineRandom)
                        / Statistics.min(baselineRandom));
    }
}
