package org.xtreemfs.bench.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.xtreemfs.bench.core.QosOverheadBenchmark.Sample;
import org.xtreemfs.bench.core.QosOverheadBenchmark.Workload;

/**
 * Whether a pooled ratio (one label's throughput or p99 against a baseline's, over all rounds of a workload) shows a
 * bound, breaks it, or cannot tell it from the run's noise: a confidence interval by resampling whole rounds (the
 * round bootstrap). A resample draws as many rounds as were measured, with replacement, and takes every label's
 * samples of each drawn round together, so the pairing within a round (which cancels the machine's drift between
 * rounds) is kept; the ratio of the pooled figures is computed on each resample, and the interval is the central
 * {@code confidence} of those ratios. Pure: the seed fixes the resamples.
 *
 * <p>Why not the per-round ratios' spread: a 1-s round's p99 rests on its slowest 1 % (a few dozen requests), so
 * single rounds range over 0.3-6x, while the pooled p99 of 30 rounds moves by a few percent; what the bound is
 * about is the pooled figure, and its uncertainty is what a different draw of rounds would give.
 */
final class PooledRatioInterval {
    /** The outcome for a bound on a ratio. */
    enum Verdict {
        /** The whole interval lies within the bound. */
        HOLDS,
        /** The whole interval lies beyond the bound. */
        EXCEEDED,
        /** The bound lies inside the interval: this run's noise cannot tell. */
        NOT_RESOLVED
    }

    /** A ratio's pooled value and the bounds of its confidence interval. */
    record Interval(double ratio, double lower, double upper) {
        /**
         * For a ratio that must stay at or above {@code minimum} (throughput), or at or below {@code maximum} (p99):
         * exactly one of the two is finite.
         */
        Verdict against(double minimum, double maximum) {
            if (lower >= minimum && upper <= maximum) {
                return Verdict.HOLDS;
            }
            if (upper < minimum || lower > maximum) {
                return Verdict.EXCEEDED;
            }
            return Verdict.NOT_RESOLVED;
        }
    }

    private PooledRatioInterval() {}

    /**
     * The pooled ratio of {@code labels} to {@code baselineLabels} (each side pooled over all its labels' samples of
     * the workload: throughput as requests over time, latency as the p99 of every request) and its central
     * {@code confidence} interval over {@code resamples} round-bootstrap resamples.
     */
    static Interval of(List<Sample> samples, Workload workload, Set<String> labels, Set<String> baselineLabels,
            boolean latency, int resamples, double confidence, long seed) {
        if (resamples < 1 || !(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("need resamples >= 1 and 0 < confidence < 1, got " + resamples + ", "
                    + confidence);
        }
        List<Integer> rounds = new ArrayList<>(new TreeSet<>(samples.stream()
                .filter(sample -> sample.workload() == workload).map(Sample::round).toList()));
        if (rounds.isEmpty()) {
            return new Interval(Double.NaN, Double.NaN, Double.NaN);
        }
        // Per round: each side's requests, elapsed time and sorted latencies (sorted once, merged by counting).
        int count = rounds.size();
        Side side = new Side(count);
        Side base = new Side(count);
        for (Sample sample : samples) {
            if (sample.workload() != workload) {
                continue;
            }
            int index = rounds.indexOf(sample.round());
            if (labels.contains(sample.policy())) {
                side.add(index, sample);
            }
            if (baselineLabels.contains(sample.policy())) {
                base.add(index, sample);
            }
        }
        side.sort();
        base.sort();
        int[] all = new int[count];
        for (int index = 0; index < count; index++) {
            all[index] = index;
        }
        double ratio = side.figure(all, latency, workload) / base.figure(all, latency, workload);
        SplittableRandom random = new SplittableRandom(seed);
        double[] ratios = new double[resamples];
        int[] drawn = new int[count];
        for (int resample = 0; resample < resamples; resample++) {
            for (int index = 0; index < count; index++) {
                drawn[index] = random.nextInt(count);
            }
            ratios[resample] = side.figure(drawn, latency, workload) / base.figure(drawn, latency, workload);
        }
        Arrays.sort(ratios);
        double tail = (1 - confidence) / 2;
        return new Interval(ratio, quantile(ratios, tail), quantile(ratios, 1 - tail));
    }

    private static double quantile(double[] sorted, double fraction) {
        int index = (int) Math.round(fraction * (sorted.length - 1));
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** One side of the ratio (a label, or several pooled), per round. */
    private static final class Side {
        final long[] requests;
        final long[] elapsedNanos;
        final List<List<long[]>> latencies = new ArrayList<>();
        final long[][] sortedLatencies;

        Side(int rounds) {
            requests = new long[rounds];
            elapsedNanos = new long[rounds];
            sortedLatencies = new long[rounds][];
            for (int index = 0; index < rounds; index++) {
                latencies.add(new ArrayList<>());
            }
        }

        void add(int round, Sample sample) {
            requests[round] += sample.requests();
            elapsedNanos[round] += sample.elapsedNanos();
            latencies.get(round).add(sample.latenciesNanos());
        }

        void sort() {
            for (int round = 0; round < sortedLatencies.length; round++) {
                long[][] parts = latencies.get(round).toArray(long[][]::new);
                int total = 0;
                for (long[] part : parts) {
                    total += part.length;
                }
                long[] merged = new long[total];
                int at = 0;
                for (long[] part : parts) {
                    System.arraycopy(part, 0, merged, at, part.length);
                    at += part.length;
                }
                Arrays.sort(merged);
                sortedLatencies[round] = merged;
            }
        }

        /** The pooled figure over the drawn rounds (a round drawn twice counts twice). */
        double figure(int[] drawn, boolean latency, Workload workload) {
            if (latency) {
                return percentile(drawn, 0.99) / 1e6;
            }
            long totalRequests = 0;
            long totalNanos = 0;
            for (int round : drawn) {
                totalRequests += requests[round];
                totalNanos += elapsedNanos[round];
            }
            return workload.throughput(totalRequests, totalNanos);
        }

        /**
         * The nearest-rank percentile of every latency of the drawn rounds, without merging them: the smallest
         * value v with at least rank latencies <= v, found by bisection over v (counting by binary search in each
         * round's sorted latencies).
         */
        double percentile(int[] drawn, double fraction) {
            long total = 0;
            long low = Long.MAX_VALUE;
            long high = Long.MIN_VALUE;
            for (int round : drawn) {
                long[] sorted = sortedLatencies[round];
                total += sorted.length;
                if (sorted.length > 0) {
                    low = Math.min(low, sorted[0]);
                    high = Math.max(high, sorted[sorted.length - 1]);
                }
            }
            if (total == 0) {
                return Double.NaN;
            }
            long rank = Math.max(1, (long) Math.ceil(fraction * total));
            while (low < high) {
                long middle = low + (high - low) / 2;
                if (atMost(drawn, middle) >= rank) {
                    high = middle;
                } else {
                    low = middle + 1;
                }
            }
            return low;
        }

        private long atMost(int[] drawn, long value) {
            long count = 0;
            for (int round : drawn) {
                count += upperBound(sortedLatencies[round], value);
            }
            return count;
        }

        /** How many of the sorted values are <= value. */
        private static int upperBound(long[] sorted, long value) {
            int low = 0;
            int high = sorted.length;
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (sorted[middle] <= value) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            return low;
        }
    }
}
