package org.xtreemfs.qos.device;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Runs the {@link CalibrationPattern} on a device model in simulated time and returns what the model delivers:
 * the derivation of a model's profile. Pure and deterministic.
 *
 * <p>Each phase starts with every client sending its first request at the phase's start; a client sends its
 * next request the moment the previous one completes (no think time). The device takes requests in the order
 * they were sent (ties by client number), one at a time, each at max(sent, the state's next start), as the
 * OSD's emulated disk does. Requests travel through {@link DeviceLayout}, as the OSD's would. A write phase
 * ends with the flush of everything its writes left dirty ({@link DeviceModel#flush}), as the calibration's
 * fsync of every file does; the flush is not counted.
 */
public final class PatternDriver {
    private PatternDriver() {}

    /**
     * The model's figures under {@code pattern}: every measured phase in order on one device state from idle. The
     * fill phase is skipped: it only puts data on a real disk, and the OSD's calibration does not charge it to an
     * emulated device either.
     */
    public static <S extends DeviceState> CalibrationResult derive(DeviceModel<S> model, CalibrationPattern pattern) {
        S state = model.initialState();
        long nowNanos = 0;
        Map<String, Double> rates = new HashMap<>();
        for (CalibrationPattern.Phase phase : pattern.phases()) {
            if (!phase.measured()) {
                continue;
            }
            PhaseOutcome<S> outcome = run(model, pattern, phase, state, nowNanos);
            state = outcome.state();
            nowNanos = outcome.endNanos();
            rates.put(phase.name(), outcome.requestsPerSecond());
            if (phase.kind() == IoKind.WRITE) {
                // The calibration's fsync of every file after a write phase: the next phase starts clean.
                ServiceResult<S> flushed = model.flush(0, model.capacityBytes(), state, nowNanos);
                state = flushed.nextState();
                nowNanos = Math.max(nowNanos, Math.max(flushed.completionNanos(), state.nextStartNanos()));
            }
        }
        return CalibrationResult.fromPhaseRates(pattern, rates);
    }

    private record PhaseOutcome<S>(S state, long endNanos, double requestsPerSecond) {}

    private static <S extends DeviceState> PhaseOutcome<S> run(DeviceModel<S> model, CalibrationPattern pattern,
            CalibrationPattern.Phase phase, S startState, long startNanos) {
        long windowStartNanos = startNanos + pattern.warmupNanos();
        long windowEndNanos = windowStartNanos + pattern.windowNanos();
        // Entries {sentNanos, client}: the earliest sent request is served next, ties by client number.
        PriorityQueue<long[]> sent = new PriorityQueue<>((left, right) -> left[0] != right[0]
                ? Long.compare(left[0], right[0]) : Long.compare(left[1], right[1]));
        long[] nextIndex = new long[phase.clients()];
        for (int client = 0; client < phase.clients(); client++) {
            sent.add(new long[] {startNanos, client});
        }
        S state = startState;
        long endNanos = startNanos;
        long countedRequests = 0;
        while (!sent.isEmpty()) {
            long[] next = sent.poll();
            long sentNanos = next[0];
            int client = (int) next[1];
            if (sentNanos >= windowEndNanos) {
                continue; // this client stops: it would send after the window closed
            }
            IoRequest request = phase.access(client, nextIndex[client]++).deviceRequest(model.capacityBytes());
            ServiceResult<S> result = model.serve(request, state, Math.max(sentNanos, state.nextStartNanos()));
            state = result.nextState();
            long completionNanos = result.completionNanos();
            endNanos = Math.max(endNanos, completionNanos);
            if (completionNanos >= windowStartNanos && completionNanos < windowEndNanos) {
                countedRequests++;
            }
            sent.add(new long[] {completionNanos, client});
        }
        double requestsPerSecond = countedRequests * 1e9 / pattern.windowNanos();
        return new PhaseOutcome<>(state, Math.max(endNanos, state.nextStartNanos()), requestsPerSecond);
    }
}
