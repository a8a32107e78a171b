package org.xtreemfs.bench.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.bench.core.QosOverheadBenchmark.Sample;
import org.xtreemfs.bench.core.QosOverheadBenchmark.Workload;

/** The overhead benchmark's own arithmetic: order of the policies, percentiles, per-round ratios, pooling. */
class QosOverheadBenchmarkTest {

    @Test
    void policiesAlternateTheirOrderFromRoundToRound() {
        // Proves the ABBA order that cancels a linear drift over a pair of rounds.
        List<String> two = List.of("fifo", "fair");
        assertThat(QosOverheadBenchmark.roundOrder(two, 0)).containsExactly("fifo", "fair");
        assertThat(QosOverheadBenchmark.roundOrder(two, 1)).containsExactly("fair", "fifo");
        assertThat(QosOverheadBenchmark.roundOrder(two, 2)).containsExactly("fair", "fifo");
        assertThat(QosOverheadBenchmark.roundOrder(two, 3)).containsExactly("fifo", "fair");
        assertThat(QosOverheadBenchmark.roundOrder(two, 4)).containsExactly("fifo", "fair");
        // Warm-up rounds are numbered 0 and below; they follow the same cycle.
        assertThat(QosOverheadBenchmark.roundOrder(two, -1)).containsExactly("fifo", "fair");
    }

    @Test
    void overSixRoundsEachOfThreeLabelsTakesEveryPositionAndFollowsEveryOtherLabelEquallyOften() {
        // Proves the carry-over balance: with rotations alone fifo-2 followed fair in two of three rounds.
        List<String> three = List.of("fifo-1", "fair", "fifo-2");
        java.util.Map<String, Integer> positions = new java.util.HashMap<>();
        java.util.Map<String, Integer> successions = new java.util.HashMap<>();
        for (int round = 1; round <= 6; round++) {
            List<String> order = QosOverheadBenchmark.roundOrder(three, round);
            assertThat(order).containsExactlyInAnyOrderElementsOf(three);
            for (int position = 0; position < order.size(); position++) {
                positions.merge(order.get(position) + "@" + position, 1, Integer::sum);
                if (position > 0) {
                    successions.merge(order.get(position - 1) + ">" + order.get(position), 1, Integer::sum);
                }
            }
        }
        assertThat(positions).hasSize(9).allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(2));
        assertThat(successions).hasSize(6).allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(2));
    }

    @Test
    void aPolicyGivenTwiceGetsNumberedLabelsThatSwitchToIt() {
        // Proves the noise-floor run: fifo,fair,fifo measures fifo-2 against fifo-1, both switching to fifo.
        assertThat(QosOverheadBenchmark.labels(List.of("fifo", "fair", "fifo")))
                .containsExactly("fifo-1", "fair", "fifo-2");
        assertThat(QosOverheadBenchmark.labels(List.of("fifo", "fair"))).containsExactly("fifo", "fair");
        assertThat(QosOverheadBenchmark.policyOf("fifo-2")).isEqualTo("fifo");
        assertThat(QosOverheadBenchmark.policyOf("fair")).isEqualTo("fair");
    }

    @Test
    void percentileIsTheNearestRank() {
        // Proves p99 of 1..100 is 99 and of 1..1000 is 990, and that one outlier in 100 does not reach p99.
        long[] hundred = new long[100];
        for (int index = 0; index < 100; index++) {
            hundred[index] = 100 - index; // unsorted on purpose
        }
        assertThat(QosOverheadBenchmark.percentile(hundred, 0.99)).isEqualTo(99);
        long[] thousand = new long[1000];
        for (int index = 0; index < 1000; index++) {
            thousand[index] = index + 1;
        }
        assertThat(QosOverheadBenchmark.percentile(thousand, 0.99)).isEqualTo(990);
        assertThat(QosOverheadBenchmark.percentile(new long[0], 0.99)).isNaN();
    }

    @Test
    void ratiosPairSamplesOfTheSameRoundAndPoolingSumsRequestsOverTime() {
        // Proves a ratio compares a policy with the baseline of its own round (a slow round hits both), and
        // that pooled throughput is total requests over total time, not a mean of rates.
        Workload random = Workload.RANDOM_READ_4K;
        List<Sample> samples = List.of(
                sample(1, "fifo", 1000, 1_000_000_000L, 1),
                sample(1, "fair", 950, 1_000_000_000L, 2),
                sample(2, "fifo", 200, 1_000_000_000L, 3),
                sample(2, "fair", 210, 1_000_000_000L, 4));
        assertThat(QosOverheadBenchmark.ratios(samples, random, "fifo", "fair", false))
                .containsExactly(0.95, 1.05);
        assertThat(QosOverheadBenchmark.median(new double[] {0.95, 1.05})).isEqualTo(1.0);
        assertThat(QosOverheadBenchmark.pooled(samples, random, "fair", false)).isEqualTo(580.0);
        assertThat(QosOverheadBenchmark.spread(new double[] {1.05, 0.95, 1.0})).isEqualTo("1.000 (0.950-1.050)");
    }

    @Test
    void theRoundBootstrapsPooledP99IsThePercentileOfAllDrawnLatencies() {
        // Proves the bisection over sorted rounds gives exactly the nearest-rank p99 of the concatenated latencies
        // (the pooled figure the table prints), for a draw of all rounds once.
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        List<Sample> samples = new java.util.ArrayList<>();
        for (int round = 1; round <= 5; round++) {
            for (String label : List.of("fifo", "fair")) {
                long[] latencies = random.longs(997 + round, 1, 5_000_000).toArray();
                samples.add(new Sample(round, Workload.RANDOM_READ_4K, label, 0, 0, latencies.length, 1_000_000_000L,
                        latencies, 0));
            }
        }
        PooledRatioInterval.Interval interval = PooledRatioInterval.of(samples, Workload.RANDOM_READ_4K,
                java.util.Set.of("fair"), java.util.Set.of("fifo"), true, 200, 0.95, 1);
        assertThat(interval.ratio()).isCloseTo(QosOverheadBenchmark.pooled(samples, Workload.RANDOM_READ_4K, "fair",
                true) / QosOverheadBenchmark.pooled(samples, Workload.RANDOM_READ_4K, "fifo", true),
                org.assertj.core.data.Offset.offset(1e-12));
        assertThat(interval.lower()).isLessThanOrEqualTo(interval.ratio());
        assertThat(interval.upper()).isGreaterThanOrEqualTo(interval.ratio());
    }

    @Test
    void theBoundHoldsIsExceededOrIsNotResolvedByTheIntervalOfTheRun() {
        // Proves the three verdicts: a policy equal to the baseline in every round holds the 5 % bound; one 20 %
        // slower in every round, whatever the round's speed, exceeds it; one equal on average but +-50 % from
        // round to round cannot be told from 5 % (the interval spans the bound).
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        List<Sample> equal = new java.util.ArrayList<>();
        List<Sample> slower = new java.util.ArrayList<>();
        List<Sample> noisy = new java.util.ArrayList<>();
        for (int round = 1; round <= 30; round++) {
            long base = 800 + random.nextInt(400); // the machine's drift: every label of the round alike
            equal.add(sample(round, "fifo", base, 1_000_000_000L, 100));
            equal.add(sample(round, "fair", base, 1_000_000_000L, 100));
            slower.add(sample(round, "fifo", base, 1_000_000_000L, 100));
            slower.add(sample(round, "fair", base * 8 / 10, 1_000_000_000L, 100));
            noisy.add(sample(round, "fifo", base, 1_000_000_000L, 100));
            noisy.add(sample(round, "fair", (long) (base * (0.5 + random.nextDouble())), 1_000_000_000L, 100));
        }
        java.util.Set<String> fair = java.util.Set.of("fair");
        java.util.Set<String> fifo = java.util.Set.of("fifo");
        assertThat(PooledRatioInterval.of(equal, Workload.RANDOM_READ_4K, fair, fifo, false, 500, 0.95, 1)
                .against(0.95, Double.POSITIVE_INFINITY)).isEqualTo(PooledRatioInterval.Verdict.HOLDS);
        PooledRatioInterval.Interval slow = PooledRatioInterval.of(slower, Workload.RANDOM_READ_4K, fair, fifo, false,
                500, 0.95, 1);
        assertThat(slow.ratio()).isCloseTo(0.8, org.assertj.core.data.Offset.offset(0.01));
        assertThat(slow.against(0.95, Double.POSITIVE_INFINITY)).isEqualTo(PooledRatioInterval.Verdict.EXCEEDED);
        PooledRatioInterval.Interval unclear = PooledRatioInterval.of(noisy, Workload.RANDOM_READ_4K, fair, fifo,
                false, 500, 0.95, 1);
        assertThat(unclear.lower()).isLessThan(0.95);
        assertThat(unclear.against(0.95, Double.POSITIVE_INFINITY))
                .isEqualTo(PooledRatioInterval.Verdict.NOT_RESOLVED);
        // Latency: a p99 bound is an upper one.
        assertThat(PooledRatioInterval.of(equal, Workload.RANDOM_READ_4K, fair, fifo, true, 500, 0.95, 1)
                .against(Double.NEGATIVE_INFINITY, 1.05)).isEqualTo(PooledRatioInterval.Verdict.HOLDS);
    }

    private static Sample sample(int round, String policy, long requests, long elapsedNanos, long latencyNanos) {
        long[] latencies = new long[(int) requests];
        java.util.Arrays.fill(latencies, latencyNanos);
        return new Sample(round, Workload.RANDOM_READ_4K, policy, requests / (elapsedNanos / 1e9),
                latencyNanos / 1e6, requests, elapsedNanos, latencies, 0);
    }
}
