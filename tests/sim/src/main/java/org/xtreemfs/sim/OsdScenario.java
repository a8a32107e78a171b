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
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.routing.AccessPattern;
import org.xtreemfs.qos.wfq.BufferedWritePacing;
import org.xtreemfs.qos.wfq.CostRule;
import org.xtreemfs.qos.wfq.FairPolicy;
import org.xtreemfs.qos.wfq.FifoPolicy;
import org.xtreemfs.qos.wfq.FlowRule;
import org.xtreemfs.qos.wfq.FlowClass;
import org.xtreemfs.qos.wfq.FlowSpec;
import org.xtreemfs.qos.wfq.QueueBounds;
import org.xtreemfs.qos.wfq.ShareRule;

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

    /**
     * A tenant as the scenario declares it, rates already in the queue's cost unit; {@code phases} say when it
     * has demand; {@code capacityBytes} is what it asks admission for.
     */
    record TenantPlan(ScenarioConfig.TenantRef ref, FlowSpec flow, Workload.Spec workload, Loop loop,
            double offeredCostPerSecond, int queueDepth, Phases phases, long capacityBytes) {
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
        // As the OSD's ShareRule: bytes plus, for a request that breaks its stream, the device profile's
        // bytesPerRandomIo (the positioning it costs); or 4 KiB-equivalent I/Os.
        this.costRule = costUnit == CostUnit.BYTES
                ? new CostRule.Bytes(ShareRule.bytesPerRandomIo(AdmissionStep.profile(
                        config.choice("device", DeviceKind.class), OsdUsageType.SEQUENTIAL)))
                : new CostRule.FourKibIos((long) config.number("cost.equivalent.bytes.per.io", 4096));
        for (ScenarioConfig.TenantRef ref : config.tenants()) {
            tenants.add(plan(ref));
        }
    }

    private TenantPlan plan(ScenarioConfig.TenantRef ref) {
        FlowClass flowClass = config.tenantChoice(ref, "class", FlowClass.class);
        long weight = (long) config.tenantNumber(ref, "weight", 1);
        long requestBytes = (long) (config.tenantNumber(ref, "request.kib") * 1024);
        long reservation = flowClass == FlowClass.RESERVED ? (long) rateInCost(ref, "reservation", requestBytes) : 0;
        long limit = config.has(config.tenantKey(ref, "limit.mib.per.second"))
                || config.has(config.tenantKey(ref, "limit.iops")) ? (long) rateInCost(ref, "limit", requestBytes) : 0;
        FlowSpec flow = new FlowSpec(flowClass, reservation, weight, limit);
        long regionBytes = (long) (config.tenantNumber(ref, "region.gib") * GIB);
        long regionStartBytes = (long) (config.tenantNumber(ref, "region.start.gib",
                ref.ordinal() * config.number("region.spacing.gib")) * GIB);
        Workload.Spec workload = new Workload.Spec(config.tenantChoice(ref, "pattern", AccessPattern.class),
                config.tenantChoice(ref, "kind", IoKind.class), requestBytes, regionStartBytes, regionBytes);
        Loop loop = config.tenantChoice(ref, "loop", Loop.class);
        double offered = loop == Loop.OPEN ? rateInCost(ref, "offered", requestBytes) : 0;
        int queueDepth = (int) config.tenantNumber(ref, "queue.depth", 1);
        long capacityBytes = (long) (config.tenantNumber(ref, "capacity.gib", regionBytes / (double) GIB) * GIB);
        return new TenantPlan(ref, flow, workload, loop, offered, queueDepth, phases(ref), capacityBytes);
    }

    /**
     * {@code tenant.<t>.on.seconds} / {@code off.seconds} / {@code phase.offset.seconds}: active for on seconds,
     * idle for off seconds, repeating from the offset (idle before it); without them, always active.
     */
    private Phases phases(ScenarioConfig.TenantRef ref) {
        String onKey = config.tenantKey(ref, "on.seconds");
        String offKey = config.tenantKey(ref, "off.seconds");
        String offsetKey = config.tenantKey(ref, "phase.offset.seconds");
        if (!config.has(onKey) && !config.has(offKey) && !config.has(offsetKey)) {
            return Phases.ALWAYS;
        }
        double on = config.tenantNumber(ref, "on.seconds", Double.POSITIVE_INFINITY);
        double off = config.tenantNumber(ref, "off.seconds", 0);
        double offset = config.tenantNumber(ref, "phase.offset.seconds", 0);
        if (!(on > 0) || !(off >= 0) || !(offset >= 0)) {
            throw new IllegalArgumentException(config.source() + ": tenant " + ref.id() + " needs " + onKey
                    + " > 0, " + offKey + " >= 0 and " + offsetKey + " >= 0, got " + on + ", " + off + ", " + offset);
        }
        if (off > 0 && Double.isInfinite(on)) {
            throw new IllegalArgumentException(config.source() + ": tenant " + ref.id() + " has " + offKey
                    + " but no " + onKey);
        }
        long onNanos = Double.isInfinite(on) ? Long.MAX_VALUE : (long) (on * SECOND_NANOS);
        return new Phases((long) (offset * SECOND_NANOS), onNanos, (long) (off * SECOND_NANOS));
    }

    /**
     * Reads {@code <prefix>.mib.per.second} or {@code <prefix>.iops} (one of them) in cost units per second. A
     * rate in the OSD's own unit (MiB/s when {@code cost=bytes}; 4 KiB-equivalent I/Os when {@code cost=ios}) is
     * taken as it is; a rate in the other unit is the tenant's own (MiB/s of its requests, or its requests per
     * second) and is converted with its request size by the OSD's cost rule. So a random 4 KiB tenant can state
     * IOPS on a bytes-charged OSD, and a 1 MiB tenant MiB/s on an I/O-charged one.
     */
    private double rateInCost(ScenarioConfig.TenantRef ref, String prefix, long requestBytes) {
        String bytesKey = config.tenantKey(ref, prefix + ".mib.per.second");
        String iopsKey = config.tenantKey(ref, prefix + ".iops");
        boolean bytesGiven = config.has(bytesKey);
        boolean iopsGiven = config.has(iopsKey);
        if (bytesGiven && iopsGiven) {
            throw new IllegalArgumentException(config.source() + ": tenant " + ref.id() + " has both " + bytesKey
                    + " and " + iopsKey + "; give one");
        }
        if (costUnit == CostUnit.BYTES) {
            return iopsGiven ? config.number(iopsKey) * requestBytes : config.number(bytesKey) * MIB;
        }
        return bytesGiven ? config.number(bytesKey) * MIB / requestBytes * costRule.costOf(requestBytes)
                : config.number(iopsKey);
    }

    ScenarioResult run(String scenarioName) {
        ScenarioResult result = new ScenarioResult(scenarioName);
        result.line("%s", config.string("description", ""));
        admission(result);
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

    /**
     * The admission step ({@code admission=admitted|refused|skip}, default admitted): the MRC's scheduler on this
     * OSD's built-in profile ({@code osd.usage}, default sequential for {@code cost=bytes} and random for
     * {@code cost=ios}) and the reserved tenants, each reservation in the profile's unit.
     */
    private void admission(ScenarioResult result) {
        AdmissionStep.Expectation expectation = config.has("admission")
                ? config.choice("admission", AdmissionStep.Expectation.class) : AdmissionStep.Expectation.ADMITTED;
        List<TenantPlan> reserved = tenants.stream()
                .filter(tenant -> tenant.flow().flowClass() == FlowClass.RESERVED).toList();
        if (expectation == AdmissionStep.Expectation.SKIP || reserved.isEmpty()) {
            return;
        }
        OsdUsageType usage = config.has("osd.usage") ? config.choice("osd.usage", OsdUsageType.class)
                : costUnit == CostUnit.BYTES ? OsdUsageType.SEQUENTIAL : OsdUsageType.RANDOM;
        OsdProfile profile = AdmissionStep.profile(config.choice("device", DeviceKind.class), usage);
        List<AdmissionStep.Request> requests = new ArrayList<>();
        for (TenantPlan tenant : reserved) {
            long requestBytes = tenant.workload().requestBytes();
            double requestsPerSecond = tenant.flow().reservationCostPerSecond() / (double) costRule.costOf(requestBytes);
            Reservation reservation = usage == OsdUsageType.RANDOM
                    ? Reservation.random(tenant.capacityBytes(), Math.max(1,
                            Math.round(requestsPerSecond * Math.ceil(requestBytes / 4096.0))))
                    : Reservation.sequential(tenant.capacityBytes(), Math.max(1,
                            Math.round(requestsPerSecond * requestBytes)));
            requests.add(new AdmissionStep.Request(tenant.id(), reservation));
        }
        AdmissionStep.report(result, profile, expectation, AdmissionStep.admit(profile, requests));
    }

    /**
     * When the device changes speed: {@code device.slowdown.schedule=70:1.5,100:1} (from 70 s 1.5x slower than
     * nominal, from 100 s nominal again), or the single change {@code device.slowdown.at.seconds} with
     * {@code device.slowdown.factor}. Factors are against the nominal device, not cumulative.
     */
    private List<double[]> slowdownSchedule() {
        boolean single = config.has("device.slowdown.at.seconds");
        boolean list = config.has("device.slowdown.schedule");
        if (single && list) {
            throw new IllegalArgumentException(config.source() + ": give device.slowdown.schedule or"
                    + " device.slowdown.at.seconds, not both");
        }
        List<double[]> changes = new ArrayList<>();
        if (single) {
            changes.add(new double[] {config.number("device.slowdown.at.seconds"), config.number("device.slowdown.factor")});
        }
        if (list) {
            double previousSeconds = -1;
            for (String item : config.list("device.slowdown.schedule")) {
                String[] parts = item.split(":");
                double seconds;
                double factor;
                try {
                    if (parts.length != 2) {
                        throw new NumberFormatException();
                    }
                    seconds = Double.parseDouble(parts[0].trim());
                    factor = Double.parseDouble(parts[1].trim());
                } catch (NumberFormatException bad) {
                    throw new IllegalArgumentException(config.source() + ": key device.slowdown.schedule needs"
                            + " SECONDS:FACTOR items separated by commas, was '" + item + "'");
                }
                if (!(seconds > previousSeconds) || !(factor > 0)) {
                    throw new IllegalArgumentException(config.source() + ": key device.slowdown.schedule needs"
                            + " increasing times >= 0 and factors > 0, was '" + item + "'");
                }
                previousSeconds = seconds;
                changes.add(new double[] {seconds, factor});
            }
        }
        return changes;
    }

    private List<TenantMetrics> runVariant(QueueKind queueKind) {
        Simulation simulation = new Simulation((long) config.number("events.max", 50_000_000));
        OsdQueue queue = queueKind == QueueKind.FIFO
                ? new OsdQueue.Policy(new FifoPolicy<>((int) config.number("queue.fifo.requests.max")))
                : fairQueue();
        Device<?> device = config.choice("device", DeviceKind.class).newDevice();
        OsdNode osd = new OsdNode("osd", simulation, device, queue, null, null);
        osd.observeWriteBack(observesWriteBack());
        long durationNanos = (long) (config.number("duration.seconds") * SECOND_NANOS);
        for (double[] change : slowdownSchedule()) {
            simulation.schedule((long) (change[0] * SECOND_NANOS), () -> osd.slowDownTo(change[1]));
        }
        List<TenantMetrics> metrics = new ArrayList<>();
        for (TenantPlan tenant : tenants) {
            TenantMetrics tenantMetrics = new TenantMetrics(tenant.id());
            metrics.add(tenantMetrics);
            Workload workload = new Workload(tenant.workload(), seed * 1_000_003L + tenant.ref().ordinal());
            if (tenant.loop() == Loop.OPEN) {
                double requestsPerSecond = tenant.offeredCostPerSecond()
                        / costRule.costOf(tenant.workload().requestBytes());
                long firstNanos = nextArrivalNanos(tenant.phases(), workload, requestsPerSecond, 0);
                if (firstNanos < durationNanos) {
                    simulation.schedule(firstNanos, new Runnable() {
                        @Override
                        public void run() {
                            submitOpenLoop(simulation, osd, tenant, workload.next(), tenantMetrics);
                            long nextNanos = nextArrivalNanos(tenant.phases(), workload, requestsPerSecond,
                                    simulation.nowNanos());
                            if (nextNanos < durationNanos) {
                                simulation.schedule(nextNanos, this);
                            }
                        }
                    });
                }
            } else {
                new ClosedLoopClient(simulation, workload, tenantMetrics, 0, durationNanos, costRule::costOf,
                        tenant.phases(), (request, done) -> {
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

    /**
     * The next Poisson arrival after {@code afterNanos} while the tenant is active: an arrival that would fall
     * into an idle phase is dropped and the process starts afresh when the next active phase begins.
     */
    private static long nextArrivalNanos(Phases phases, Workload workload, double requestsPerSecond, long afterNanos) {
        long nextNanos = afterNanos + workload.nextInterArrivalNanos(requestsPerSecond);
        while (!phases.activeAt(nextNanos)) {
            long activeNanos = phases.nextActiveNanos(nextNanos);
            nextNanos = activeNanos + workload.nextInterArrivalNanos(requestsPerSecond);
        }
        return nextNanos;
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

            @Override
            public long chargedBytes(long payloadBytes, boolean continuesStream) {
                return costRule.chargedBytes(payloadBytes, continuesStream);
            }
        };
        return new OsdQueue.Policy(new FairPolicy<>(scenarioRule, new QueueBounds(
                (int) config.number("queue.flow.requests.max"), (int) config.number("queue.total.requests.max")),
                FairPolicy.FLOW_IDLE_FORGET_NANOS_DEFAULT, pacing()), scenarioRule);
    }

    /**
     * As the OSD paces buffered writes (qos.wfq.BufferedWritePacing) at its profile's rate in the cost unit:
     * {@code queue.pacing=on|off} (default on), {@code queue.pacing.burst.ms} (default the OSD's).
     */
    private BufferedWritePacing pacing() {
        String mode = config.string("queue.pacing", "on");
        if (!mode.equals("on") && !mode.equals("off")) {
            throw new IllegalArgumentException(config.source() + ": queue.pacing must be on or off, not " + mode);
        }
        if (mode.equals("off")) {
            return null;
        }
        long burstNanos = (long) (config.number("queue.pacing.burst.ms",
                BufferedWritePacing.BURST_NANOS_DEFAULT / 1e6) * 1e6);
        OsdProfile profile = AdmissionStep.profile(config.choice("device", DeviceKind.class),
                costUnit == CostUnit.BYTES ? OsdUsageType.SEQUENTIAL : OsdUsageType.RANDOM);
        return new BufferedWritePacing(ShareRule.capacityCostPerSecond(profile), burstNanos);
    }

    /**
     * {@code queue.pacing.writeBack=observed|ignored} (default observed, as the OSD with an emulated device): whether
     * the fair policy's pacing is told how full the device's write-back is, which opens it while the flusher idles
     * ({@code BufferedWritePacing}); ignored paces at the profile's rate throughout (the rule before that).
     */
    private boolean observesWriteBack() {
        String mode = config.string("queue.pacing.writeBack", "observed");
        if (!mode.equals("observed") && !mode.equals("ignored")) {
            throw new IllegalArgumentException(config.source() + ": queue.pacing.writeBack must be observed or ignored, not "
                    + mode);
        }
        return mode.equals("observed");
    }

    private List<TenantOutcome> summarize(List<TenantMetrics> metrics) {
        int warmupWindows = (int) config.number("warmup.seconds");
        int endWindow = (int) config.number("duration.seconds");
        double floor = config.number("invariant.attainment.min", 0.9);
        List<TenantOutcome> outcomes = new ArrayList<>();
        for (int index = 0; index < tenants.size(); index++) {
            TenantPlan plan = tenants.get(index);
            TenantMetrics tenantMetrics = metrics.get(index);
            double achieved = (double) tenantMetrics.costBetween(warmupWindows, endWindow)
                    / (endWindow - warmupWindows);
            long reservation = plan.flow().reservationCostPerSecond();
            // Only windows in which the tenant has demand throughout can show whether it got its reservation.
            int windows = 0;
            int meeting = 0;
            long demandWindowsCost = 0;
            for (int window = warmupWindows; window < endWindow; window++) {
                if (!plan.phases().activeThroughout(window * SECOND_NANOS, (window + 1) * SECOND_NANOS)) {
                    continue;
                }
                windows++;
                demandWindowsCost += tenantMetrics.costInWindow(window);
                if (reservation > 0 && tenantMetrics.costInWindow(window) >= floor * reservation) {
                    meeting++;
                }
            }
            double meanAttainment = reservation > 0 && windows > 0
                    ? (double) demandWindowsCost / windows / reservation : Double.NaN;
            outcomes.add(new TenantOutcome(plan, achieved, meanAttainment,
                    reservation > 0 && windows > 0 ? (double) meeting / windows : Double.NaN, windows,
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
                    .mapToDouble(o -> o.achievedCostPerSecond() / offeredMean(o.plan())).min().orElseThrow();
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
        double offeredTotal = tenants.stream().mapToDouble(this::offeredMean).sum();
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
            // Tenants are equal when their flows and their phases are.
            double jainMin = lowestJainByGroup(fair, outcome -> List.of(outcome.plan().flow(), outcome.plan().phases()),
                    TenantOutcome::achievedCostPerSecond);
            result.check("equal tenants get equal service (Jain)", jainMin >= config.number("invariant.jain.min",
                    0.99), "lowest Jain index over groups of equal class, reservation and weight %.4f", jainMin);
            double spareJainMin = lowestJainByGroup(fair,
                    outcome -> List.of(outcome.plan().flow().weight(), outcome.plan().phases()),
                    outcome -> outcome.achievedCostPerSecond() - outcome.plan().flow().reservationCostPerSecond());
            result.check("equal weights share the spare equally (Jain of achieved minus reservation)",
                    spareJainMin >= config.number("invariant.jain.min", 0.99), "lowest over groups of equal weight %.4f",
                    spareJainMin);
        }
    }

    /** What the tenant offers on average between warm-up and the end, idle phases included. */
    private double offeredMean(TenantPlan plan) {
        long startNanos = (long) (config.number("warmup.seconds") * SECOND_NANOS);
        long endNanos = (long) (config.number("duration.seconds") * SECOND_NANOS);
        return plan.offeredCostPerSecond() * plan.phases().activeNanosBetween(startNanos, endNanos)
                / (endNanos - startNanos);
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
