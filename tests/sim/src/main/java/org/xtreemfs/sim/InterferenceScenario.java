package org.xtreemfs.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.LogStructuredLayout;
import org.xtreemfs.qos.routing.AccessPattern;

/**
 * {@code kind=interference}: the calibration behind mission.md §1. Pairs of tenants of the four basic types
 * (sr, rr, sw, rw: sequential/random read/write) share one disk through a FIFO queue; each tenant's throughput
 * together is compared with its throughput alone in the same region. Invariants: same-type pairs split evenly;
 * a random reader costs a sequential reader far more than half while keeping about half itself; a random
 * writer costs every neighbour; random writes appended to a log run an order of magnitude faster than in place.
 */
final class InterferenceScenario {
    private static final long GIB = 1L << 30;
    private static final long SECOND_NANOS = 1_000_000_000L;

    /** Throughput of each side of a pair, alone and together (bytes/s for sequential, requests/s for random). */
    record PairOutcome(String pair, String[] types, double[] alone, double[] together) {
        double kept(int side) {
            return together[side] / alone[side];
        }
    }

    private final ScenarioConfig config;
    private final long seed;
    private final Map<String, Double> aloneCache = new HashMap<>();

    InterferenceScenario(ScenarioConfig config, long seed) {
        this.config = config;
        this.seed = seed;
    }

    ScenarioResult run(String scenarioName) {
        ScenarioResult result = new ScenarioResult(scenarioName);
        result.line("%s", config.string("description", ""));
        result.line("%-8s %-4s %12s %12s %8s   %-4s %12s %12s %8s", "pair", "a", "alone", "together", "kept", "b",
                "alone", "together", "kept");
        Map<String, PairOutcome> outcomes = new HashMap<>();
        List<List<String>> rows = new ArrayList<>();
        for (String pair : config.list("pairs")) {
            String[] types = pair.split("\\+");
            if (types.length != 2) {
                throw new IllegalArgumentException(config.source() + ": key pairs needs entries like sr+rr, was "
                        + pair);
            }
            double[] alone = {alone(types[0], 0), alone(types[1], 1)};
            double[] together = run(List.of(types[0], types[1]), false);
            PairOutcome outcome = new PairOutcome(pair, types, alone, together);
            outcomes.put(pair, outcome);
            result.line("%-8s %-4s %12s %12s %7.1f%%   %-4s %12s %12s %7.1f%%", pair, types[0],
                    rate(types[0], alone[0]), rate(types[0], together[0]), outcome.kept(0) * 100, types[1],
                    rate(types[1], alone[1]), rate(types[1], together[1]), outcome.kept(1) * 100);
            for (int side = 0; side < 2; side++) {
                rows.add(List.of(scenarioName, pair, types[side], Integer.toString(side),
                        String.format(Locale.ROOT, "%.3f", alone[side]), String.format(Locale.ROOT, "%.3f",
                                together[side]), String.format(Locale.ROOT, "%.4f", outcome.kept(side))));
            }
        }
        result.table(new ScenarioResult.CsvTable(scenarioName + "-pairs.csv",
                List.of("scenario", "pair", "type", "side", "alone", "together", "kept"), rows));
        double inPlace = alone("rw", 0);
        double logged = run(List.of("rw"), true)[0];
        result.line("random 4 KiB writes alone: in place %s, appended to a log %s", rate("rw", inPlace),
                rate("rw", logged));
        checkInvariants(result, outcomes, logged / inPlace);
        return result;
    }

    private void checkInvariants(ScenarioResult result, Map<String, PairOutcome> outcomes, double logGain) {
        double evenTolerance = config.number("invariant.even.tolerance");
        for (String type : List.of("sr", "rr", "sw", "rw")) {
            PairOutcome same = outcomes.get(type + "+" + type);
            if (same != null) {
                double ratio = same.together()[0] / same.together()[1];
                result.check("same-type " + type + " pair splits evenly", Math.abs(ratio - 1) <= evenTolerance,
                        "side a / side b = %.3f, each keeps %.0f %% / %.0f %% of alone", ratio, same.kept(0) * 100,
                        same.kept(1) * 100);
            }
        }
        PairOutcome mixedReads = require(outcomes, "sr+rr");
        result.check("a random reader costs a sequential reader far more than half",
                mixedReads.kept(0) <= config.number("invariant.sequential.kept.max"),
                "sequential reader keeps %.1f %%", mixedReads.kept(0) * 100);
        result.check("the random reader keeps about its fair half",
                mixedReads.kept(1) >= config.number("invariant.random.kept.min"), "random reader keeps %.1f %%",
                mixedReads.kept(1) * 100);
        double hurtMax = config.number("invariant.random.writer.neighbour.kept.max");
        for (String neighbour : List.of("sr", "rr", "rw")) {
            PairOutcome withWriter = require(outcomes, neighbour + "+rw");
            result.check("a random writer hurts a " + neighbour + " neighbour", withWriter.kept(0) <= hurtMax,
                    "%s keeps %.1f %%", neighbour, withWriter.kept(0) * 100);
        }
        PairOutcome writers = require(outcomes, "sw+sw");
        double writersAggregate = writers.kept(0) + writers.kept(1);
        result.check("two sequential writers together barely drop (HARNESS D5.1)",
                writersAggregate >= config.number("invariant.sequential.writers.aggregate.min"),
                "together %.0f %% of one alone", writersAggregate * 100);
        PairOutcome writerWithRandom = require(outcomes, "sw+rr");
        result.check("a random reader costs a sequential writer far more than half",
                writerWithRandom.kept(0) <= config.number("invariant.sequential.kept.max"),
                "sequential writer keeps %.1f %%", writerWithRandom.kept(0) * 100);
        result.check("random writes appended to a log run much faster than in place",
                logGain >= config.number("invariant.log.gain.min"), "log / in place = %.1fx", logGain);
    }

    private PairOutcome require(Map<String, PairOutcome> outcomes, String pair) {
        PairOutcome outcome = outcomes.get(pair);
        if (outcome == null) {
            throw new IllegalArgumentException(config.source() + ": the invariants need pair " + pair
                    + " in key pairs");
        }
        return outcome;
    }

    private double alone(String type, int slot) {
        return aloneCache.computeIfAbsent(type + "@" + slot, key -> {
            List<String> types = new ArrayList<>();
            for (int index = 0; index < slot; index++) {
                types.add(null);
            }
            types.add(type);
            return run(types, false)[slot];
        });
    }

    /** Runs the given tenant types (null = empty slot) together; returns each slot's throughput. */
    private double[] run(List<String> types, boolean logStructured) {
        Simulation simulation = new Simulation((long) config.number("events.max", 50_000_000));
        Device<?> device = config.choice("device", DeviceKind.class).newDevice();
        long regionSpacingBytes = (long) (config.number("region.spacing.gib") * GIB);
        LogStructuredLayout log = logStructured ? LogStructuredLayout.empty(types.size() * regionSpacingBytes,
                (types.size() + 1) * regionSpacingBytes) : null;
        OsdNode osd = new OsdNode("osd", simulation, device, new OsdQueue.Fifo(1024), null, log);
        long durationNanos = (long) (config.number("duration.seconds") * SECOND_NANOS);
        List<TenantMetrics> metrics = new ArrayList<>();
        for (int slot = 0; slot < types.size(); slot++) {
            String type = types.get(slot);
            TenantMetrics tenantMetrics = new TenantMetrics(type == null ? "empty" : type);
            metrics.add(tenantMetrics);
            if (type == null) {
                continue;
            }
            Workload workload = new Workload(spec(type, slot * regionSpacingBytes), seed * 1_000_003L + slot);
            new ClosedLoopClient(simulation, workload, tenantMetrics, 0, durationNanos, LongUnaryOperator.identity(),
                    (request, done) -> osd.submit(new IoOp(tenantMetrics.tenantId(), request, request.lengthBytes(),
                            done))).start((int) config.number("queue.depth"));
        }
        simulation.runUntil(durationNanos);
        // Measured after the warm-up: a buffered writer's first tens of seconds fill the host's dirty buffer
        // (and its oldest data expires after 30 s); the facts are about the steady state.
        int warmupWindows = (int) config.number("warmup.seconds");
        int endWindow = (int) (durationNanos / TenantMetrics.WINDOW_NANOS);
        if (warmupWindows < 0 || warmupWindows >= endWindow) {
            throw new IllegalArgumentException(config.source() + ": warmup.seconds must be in [0, duration.seconds), was "
                    + warmupWindows);
        }
        double measuredSeconds = endWindow - warmupWindows;
        double[] throughput = new double[types.size()];
        for (int slot = 0; slot < types.size(); slot++) {
            TenantMetrics tenantMetrics = metrics.get(slot);
            boolean random = types.get(slot) != null && types.get(slot).startsWith("r");
            double bytesPerSecond = tenantMetrics.costBetween(warmupWindows, endWindow) / measuredSeconds;
            throughput[slot] = random ? bytesPerSecond / (config.number("random.request.kib") * 1024) : bytesPerSecond;
        }
        return throughput;
    }

    private Workload.Spec spec(String type, long regionStartBytes) {
        boolean random = switch (type) {
            case "sr", "sw" -> false;
            case "rr", "rw" -> true;
            default -> throw new IllegalArgumentException(config.source() + ": unknown tenant type " + type
                    + " (sr, rr, sw, rw)");
        };
        IoKind kind = type.endsWith("r") ? IoKind.READ : IoKind.WRITE;
        long requestBytes = (long) (config.number(random ? "random.request.kib" : "sequential.request.kib") * 1024);
        return new Workload.Spec(random ? AccessPattern.RANDOM : AccessPattern.SEQUENTIAL, kind, requestBytes,
                regionStartBytes, (long) (config.number("region.gib") * GIB));
    }

    private static String rate(String type, double value) {
        return type.startsWith("r")
                ? String.format(Locale.ROOT, "%.1f IOPS", value)
                : String.format(Locale.ROOT, "%.1f MB/s", value / 1e6);
    }
}
