package org.xtreemfs.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.routing.AccessPattern;
import org.xtreemfs.qos.wfq.CostRule;
import org.xtreemfs.qos.wfq.FairPolicy;
import org.xtreemfs.qos.wfq.FifoPolicy;
import org.xtreemfs.qos.wfq.FlowRule;
import org.xtreemfs.qos.wfq.FlowClass;
import org.xtreemfs.qos.wfq.FlowSpec;
import org.xtreemfs.qos.wfq.QueueBounds;

/**
 * {@code kind=osd}: tenants with reservations on one OSD, run once per queue variant (fifo, fair). Invariant:
 * with the fair queue every reserved tenant gets at least the attainment floor in the required fraction of
 * 1-second windows after warm-up and equal tenants are treated equally (Jain); with FIFO the reservations fail.
 */
final class OsdScenario {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final long SECOND_NANOS = 1_000_000_000L;

    enum QueueKind { FIFO, FAIR }

    enum CostUnit { BYTES, IOS }

    enum Loop { OPEN, CLOSED }

    /** A tenant as the scenario declares it, rates already in the queue's cost unit. */
    record TenantPlan(ScenarioConfig.TenantRef ref, FlowSpec flow, Workload.Spec workload, Loop loop,
            double offeredCostPerSecond, int queueDepth) {
        String id() {
            return ref.id();
        }
    }

    /** What one variant measured for one tenant, after warm-up. */
    record TenantOutcome(TenantPlan plan, double achievedCostPerSecond, double meanAttainment,
            double windowsMeetingFloorFraction, int windows, long p50Nanos, long p99Nanos, long p999Nanos,
            long rejected) {}

    private final ScenarioConfig config;
    private final long seed;
    private final CostUnit costUnit;
    private final CostRule costRule;
    private final List<TenantPlan> tenants = new ArrayList<>();

    OsdScenario(ScenarioConfig config, long seed) {
        this.config = config;
        this.seed = seed;
        this.costUnit = config.choice("cost", CostUnit.class);
        this.costRule = costUnit == CostUnit.BYTES
                ? new CostRule.Bytes()
                : new CostRule.FourKibIos((long) config.number("cost.equivalent.bytes.per.io", 4096));
        for (ScenarioConfig.TenantRef ref : config.tenants()) {
            tenants.add(plan(ref));
        }
    }

    private TenantPlan plan(ScenarioConfig.TenantRef ref) {
        FlowClass flowClass = config.tenantChoice(ref, "class", FlowClass.class);
        long weight = (long) config.tenantNumber(ref, "weight", 1);
        long reservation = flowClass == FlowClass.RESERVED ? (long) rateInCost(ref, "reservation") : 0;
        long limit = config.has(config.tenantKey(ref, "limit.mib.per.second"))
                || config.has(config.tenantKey(ref, "limit.iops")) ? (long) rateInCost(ref, "limit") : 0;
        FlowSpec flow = new FlowSpec(flowClass, reservation, weight, limit);
        long requestBytes = (long) (config.tenantNumber(ref, "request.kib") * 1024);
        long regionBytes = (long) (config.tenantNumber(ref, "region.gib") * GIB);
        long regionStartBytes = (long) (config.tenantNumber(ref, "region.start.gib",
                ref.ordinal() * config.number("region.spacing.gib")) * GIB);
        Workload.Spec workload = new Workload.Spec(config.tenantChoice(ref, "pattern", AccessPattern.class),
                config.tenantChoice(ref, "kind", IoKind.class), requestBytes, regionStartBytes, regionBytes);
        Loop loop = config.tenantChoice(ref, "loop", Loop.class);
        double offered = loop == Loop.OPEN ? rateInCost(ref, "offered") : 0;
        int queueDepth = (int) config.tenantNumber(ref, "queue.depth", 1);
        return new TenantPlan(ref, flow, workload, loop, offered, queueDepth);
    }

    /** Reads {@code <prefix>.mib.per.second} or {@code <prefix>.iops} and converts to cost units per second. */
    private double rateInCost(ScenarioConfig.TenantRef ref, String prefix) {
        String key = costUnit == CostUnit.BYTES ? prefix + ".mib.per.second" : prefix + ".iops";
        double value = config.tenantNumber(ref, key);
        return costUnit == CostUnit.BYTES ? value * MIB : value;
    }

    ScenarioResult run(String scenarioName) {
        ScenarioResult result = new ScenarioResult(scenarioName);
        result.line("%s", config.string("description", ""));
        Map<QueueKind, List<TenantOutcome>> outcomes = new LinkedHashMap<>();
        Map<QueueKind, Double> achievedTotals = new LinkedHashMap<>();
        for (String variant : config.list("variants")) {
            QueueKind queueKind = QueueKind.valueOf(variant.toUpperCase(Locale.ROOT));
            List<TenantMetrics> metrics = runVariant(queueKind);
            List<TenantOutcome> variantOutcomes = summarize(metrics);
            outcomes.put(queueKind, variantOutcomes);
            achievedTotals.put(queueKind, variantOutcomes.stream().mapToDouble(TenantOutcome::achievedCostPerSecond)
                    .sum());
            report(result, scenarioName, queueKind, metrics, variantOutcomes);
        }
        checkInvariants(result, outcomes, achievedTotals);
        return result;
    }

    private List<TenantMetrics> runVariant(QueueKind queueKind) {
        Simulation simulation = new Simulation((long) config.number("events.max", 50_000_000));
        OsdQueue queue = queueKind == QueueKind.FIFO
                ? new OsdQueue.Policy(new FifoPolicy<>((int) config.number("queue.fifo.requests.max")))
                : fairQueue();
        Device<?> device = config.choice("device", DeviceKind.class).newDevice();
        OsdNode osd = new OsdNode("osd", simulation, device, queue, null, null);
        long durationNanos = (long) (config.number("duration.seconds") * SECOND_NANOS);
        if (config.has("device.slowdown.at.seconds")) {
            double factor = config.number("device.slowdown.factor");
            simulation.schedule((long) (config.number("device.slowdown.at.seconds") * SECOND_NANOS),
                    () -> osd.slowDown(factor));
        }
        List<TenantMetrics> metrics = new ArrayList<>();
        for (TenantPlan tenant : tenants) {
            TenantMetrics tenantMetrics = new TenantMetrics(tenant.id());
            metrics.add(tenantMetrics);
            Workload workload = new Workload(tenant.workload(), seed * 1_000_003L + tenant.ref().ordinal());
            if (tenant.loop() == Loop.OPEN) {
                double requestsPerSecond = tenant.offeredCostPerSecond()
                        / costRule.costOf(tenant.workload().requestBytes());
                simulation.schedule(workload.nextInterArrivalNanos(requestsPerSecond), new Runnable() {
                    @Override
                    public void run() {
                        submitOpenLoop(simulation, osd, tenant, workload.next(), tenantMetrics);
                        long nextNanos = simulation.nowNanos() + workload.nextInterArrivalNanos(requestsPerSecond);
                        if (nextNanos < durationNanos) {
                            simulation.schedule(nextNanos, this);
                        }
                    }
                });
            } else {
                new ClosedLoopClient(simulation, workload, tenantMetrics, 0, durationNanos, costRule::costOf,
                        (request, done) -> {
                    IoOp op = new IoOp(tenant.id(), request, costRule.costOf(request.lengthBytes()), done);
                    if (!osd.submit(op).accepted()) {
                        throw new IllegalStateException(config.source() + ": closed-loop tenant " + tenant.id()
                                + " was rejected; raise the queue bounds above the queue depths");
                    }
                }).start(tenant.queueDepth());
            }
        }
        simulation.runUntil(durationNanos);
        return metrics;
    }

    /** Submits one open-loop request; a full queue rejects it and the tenant counts the rejection. */
    private void submitOpenLoop(Simulation simulation, OsdNode osd, TenantPlan tenant, IoRequest request,
            TenantMetrics metrics) {
        long cost = costRule.costOf(request.lengthBytes());
        long submitNanos = simulation.nowNanos();
        IoOp op = new IoOp(tenant.id(), request, cost,
                completionNanos -> metrics.completed(submitNanos, completionNanos, request.lengthBytes(), cost));
        if (!osd.submit(op).accepted()) {
            metrics.rejected();
        }
    }

    /** The OSD's fair policy with a rule that gives each tenant its declared flow and charges by the scenario. */
    private OsdQueue fairQueue() {
        Map<String, FlowSpec> flows = new HashMap<>();
        for (TenantPlan tenant : tenants) {
            flows.put(tenant.id(), tenant.flow());
        }
        FlowRule scenarioRule = new FlowRule() {
            @Override
            public FlowSpec flowSpec(String volumeId, VolumeShare share) {
                return flows.get(volumeId);
            }

            @Override
            public long costOf(long payloadBytes) {
                return costRule.costOf(payloadBytes);
            }
        };
        return new OsdQueue.Policy(new FairPolicy<>(scenarioRule, new QueueBounds(
                (int) config.number("queue.flow.requests.max"), (int) config.number("queue.total.requests.max")),
                FairPolicy.FLOW_IDLE_FORGET_NANOS_DEFAULT));
    }

    private List<TenantOutcome> summarize(List<TenantMetrics> metrics) {
        int warmupWindows = (int) config.number("warmup.seconds");
        int endWindow = (int) config.number("duration.seconds");
        double floor = config.number("invariant.attainment.min", 0.9);
        List<TenantOutcome> outcomes = new ArrayList<>();
        for (int index = 0; index < tenants.size(); index++) {
            TenantPlan plan = tenants.get(index);
            TenantMetrics tenantMetrics = metrics.get(index);
            int windows = endWindow - warmupWindows;
            double achieved = (double) tenantMetrics.costBetween(warmupWindows, endWindow) / windows;
            long reservation = plan.flow().reservationCostPerSecond();
            int meeting = 0;
            for (int window = warmupWindows; window < endWindow; window++) {
                if (reservation > 0 && tenantMetrics.costInWindow(window) >= floor * reservation) {
                    meeting++;
                }
            }
            outcomes.add(new TenantOutcome(plan, achieved, reservation > 0 ? achieved / reservation : Double.NaN,
                    reservation > 0 ? (double) meeting / windows : Double.NaN, windows,
                    tenantMetrics.latencyQuantileNanos(0.5), tenantMetrics.latencyQuantileNanos(0.99),
                    tenantMetrics.latencyQuantileNanos(0.999), tenantMetrics.rejectedRequests()));
        }
        return outcomes;
    }

    private String unit() {
        return costUnit == CostUnit.BYTES ? "MiB/s" : "IOPS";
    }

    private double display(double costPerSecond) {
        return costUnit == CostUnit.BYTES ? costPerSecond / MIB : costPerSecond;
    }

    private void report(ScenarioResult result, String scenarioName, QueueKind queueKind, List<TenantMetrics> metrics,
            List<TenantOutcome> outcomes) {
        int endWindow = (int) config.number("duration.seconds");
        int every = (int) config.number("report.every.seconds", 10);
        result.line("-- variant %s: per-tenant throughput (%s) per 1 s window, every %d s", queueKind, unit(),
                every);
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%8s", "second"));
        for (TenantMetrics tenant : metrics) {
            header.append(String.format(Locale.ROOT, " %10s", tenant.tenantId()));
        }
        result.line("%s", header);
        for (int window = 0; window < endWindow; window += every) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%8d", window));
            for (TenantMetrics tenant : metrics) {
                row.append(String.format(Locale.ROOT, " %10.2f", display(tenant.costInWindow(window))));
            }
            result.line("%s", row);
        }
        result.line("%-12s %-11s %11s %11s %10s %12s %9s %9s %9s %8s", "tenant", "class", "reserved",
                "achieved", "mean att.", "windows>=min", "p50 ms", "p99 ms", "p99.9 ms", "rejected");
        List<List<String>> tenantRows = new ArrayList<>();
        for (TenantOutcome outcome : outcomes) {
            FlowSpec flow = outcome.plan().flow();
            result.line("%-12s %-11s %11.2f %11.2f %10.3f %12.4f %9.1f %9.1f %9.1f %8d", outcome.plan().id(),
                    flow.flowClass(), display(flow.reservationCostPerSecond()),
                    display(outcome.achievedCostPerSecond()), outcome.meanAttainment(),
                    outcome.windowsMeetingFloorFraction(), outcome.p50Nanos() / 1e6, outcome.p99Nanos() / 1e6,
                    outcome.p999Nanos() / 1e6, outcome.rejected());
            tenantRows.add(List.of(scenarioName, queueKind.name().toLowerCase(Locale.ROOT), outcome.plan().id(),
                    flow.flowClass().name(), Long.toString(flow.weight()), unit(),
                    format(display(flow.reservationCostPerSecond())), format(display(outcome.achievedCostPerSecond())),
                    format(outcome.windowsMeetingFloorFraction()), format(outcome.p50Nanos() / 1e6),
                    format(outcome.p99Nanos() / 1e6), format(outcome.p999Nanos() / 1e6),
                    Long.toString(outcome.rejected())));
        }
        String prefix = scenarioName + "-" + queueKind.name().toLowerCase(Locale.ROOT);
        result.table(new ScenarioResult.CsvTable(prefix + "-tenants.csv", List.of("scenario", "variant", "tenant",
                "class", "weight", "unit", "reservation", "achieved", "windows_meeting_floor", "p50_ms", "p99_ms",
                "p999_ms", "rejected"), tenantRows));
        List<List<String>> windowRows = new ArrayList<>();
        for (TenantMetrics tenant : metrics) {
            for (int window = 0; window < endWindow; window++) {
                windowRows.add(List.of(tenant.tenantId(), Integer.toString(window),
                        Long.toString(tenant.bytesInWindow(window)), Long.toString(tenant.costInWindow(window))));
            }
        }
        result.table(new ScenarioResult.CsvTable(prefix + "-windows.csv", List.of("tenant", "second", "bytes",
                "cost"), windowRows));
    }

    private void checkInvariants(ScenarioResult result, Map<QueueKind, List<TenantOutcome>> outcomes,
            Map<QueueKind, Double> achievedTotals) {
        switch (config.string("invariant")) {
            case "reservations" -> checkReservations(result, outcomes, achievedTotals);
            case "overhead" -> checkOverhead(result, outcomes, achievedTotals);
            default -> throw new IllegalArgumentException(config.source() + ": key invariant must be reservations or "
                    + "overhead, was '" + config.string("invariant") + "'");
        }
    }

    /** Not overloaded: every tenant gets what it offers under both queues, and the fair queue costs no throughput. */
    private void checkOverhead(ScenarioResult result, Map<QueueKind, List<TenantOutcome>> outcomes,
            Map<QueueKind, Double> achievedTotals) {
        if (outcomes.get(QueueKind.FIFO) == null || outcomes.get(QueueKind.FAIR) == null) {
            throw new IllegalArgumentException(config.source() + ": invariant overhead needs variants fifo,fair");
        }
        double servedMin = config.number("invariant.served.fraction.min");
        for (Map.Entry<QueueKind, List<TenantOutcome>> variant : outcomes.entrySet()) {
            double lowest = variant.getValue().stream()
                    .mapToDouble(o -> o.achievedCostPerSecond() / o.plan().offeredCostPerSecond()).min().orElseThrow();
            long rejected = variant.getValue().stream().mapToLong(TenantOutcome::rejected).sum();
            result.check(variant.getKey() + ": not overloaded, every tenant gets what it offers",
                    lowest >= servedMin && rejected == 0, "lowest achieved/offered %.3f, %d rejected", lowest, rejected);
        }
        double ratio = achievedTotals.get(QueueKind.FAIR) / achievedTotals.get(QueueKind.FIFO);
        result.check("the fair queue costs at most the allowed throughput against FIFO",
                ratio >= 1 - config.number("invariant.overhead.max"), "fair/FIFO delivered %.4f (%.2f vs %.2f %s)",
                ratio, display(achievedTotals.get(QueueKind.FAIR)), display(achievedTotals.get(QueueKind.FIFO)),
                unit());
    }

    private void checkReservations(ScenarioResult result, Map<QueueKind, List<TenantOutcome>> outcomes,
            Map<QueueKind, Double> achievedTotals) {
        double windowsFractionMin = config.number("invariant.windows.fraction.min", 0.999);
        double floor = config.number("invariant.attainment.min", 0.9);
        double offeredTotal = tenants.stream().mapToDouble(TenantPlan::offeredCostPerSecond).sum();
        List<TenantOutcome> fifo = outcomes.get(QueueKind.FIFO);
        if (fifo != null) {
            if (offeredTotal > 0) {
                double overload = offeredTotal / achievedTotals.get(QueueKind.FIFO);
                result.check("the OSD is overloaded as the scenario intends", overload >= config.number(
                        "invariant.overload.min"), "offered %.2f %s / delivered %.2f %s = %.2fx", display(
                        offeredTotal), unit(), display(achievedTotals.get(QueueKind.FIFO)), unit(), overload);
            }
            TenantOutcome worst = worstReserved(fifo);
            result.check("with FIFO some reservation is violated", worst.windowsMeetingFloorFraction()
                    < windowsFractionMin, "worst %s meets %.0f %% of its reservation in %.1f %% of windows "
                    + "(mean attainment %.2f)", worst.plan().id(), floor * 100,
                    worst.windowsMeetingFloorFraction() * 100, worst.meanAttainment());
        }
        List<TenantOutcome> fair = outcomes.get(QueueKind.FAIR);
        if (fair != null) {
            TenantOutcome worst = worstReserved(fair);
            result.check("with the fair queue every reservation holds in the required windows",
                    worst.windowsMeetingFloorFraction() >= windowsFractionMin, "worst %s meets %.0f %% in %.2f %% of "
                    + "%d windows (needs %.1f %%)", worst.plan().id(), floor * 100,
                    worst.windowsMeetingFloorFraction() * 100, worst.windows(), windowsFractionMin * 100);
            double meanAttainmentMin = fair.stream().filter(o -> o.plan().flow().reservationCostPerSecond() > 0)
                    .mapToDouble(TenantOutcome::meanAttainment).min().orElse(Double.NaN);
            result.check("with the fair queue mean attainment is at least 100 %", meanAttainmentMin >= 1.0,
                    "lowest mean attainment %.3f", meanAttainmentMin);
            double jainMin = lowestJainByGroup(fair, outcome -> outcome.plan().flow(),
                    TenantOutcome::achievedCostPerSecond);
            result.check("equal tenants get equal service (Jain)", jainMin >= config.number("invariant.jain.min",
                    0.99), "lowest Jain index over groups of equal class, reservation and weight %.4f", jainMin);
            double spareJainMin = lowestJainByGroup(fair, outcome -> outcome.plan().flow().weight(),
                    outcome -> outcome.achievedCostPerSecond() - outcome.plan().flow().reservationCostPerSecond());
            result.check("equal weights share the spare equally (Jain of achieved minus reservation)",
                    spareJainMin >= config.number("invariant.jain.min", 0.99), "lowest over groups of equal weight %.4f",
                    spareJainMin);
        }
    }

    private static TenantOutcome worstReserved(List<TenantOutcome> outcomes) {
        TenantOutcome worst = null;
        for (TenantOutcome outcome : outcomes) {
            if (outcome.plan().flow().reservationCostPerSecond() > 0 && (worst == null
                    || outcome.windowsMeetingFloorFraction() < worst.windowsMeetingFloorFraction())) {
                worst = outcome;
            }
        }
        if (worst == null) {
            throw new IllegalArgumentException("the reservation invariant needs at least one reserved tenant");
        }
        return worst;
    }

    /** Lowest Jain index of {@code value} over each group of at least two tenants with the same {@code key}. */
    private static double lowestJainByGroup(List<TenantOutcome> outcomes, Function<TenantOutcome, Object> key,
            ToDoubleFunction<TenantOutcome> value) {
        Map<Object, List<Double>> groups = new LinkedHashMap<>();
        for (TenantOutcome outcome : outcomes) {
            groups.computeIfAbsent(key.apply(outcome), group -> new ArrayList<>()).add(value.applyAsDouble(outcome));
        }
        double lowest = 1.0;
        for (List<Double> group : groups.values()) {
            if (group.size() > 1) {
                lowest = Math.min(lowest, Statistics.jainIndex(group));
            }
        }
        return lowest;
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.4f", value);
    }
}
