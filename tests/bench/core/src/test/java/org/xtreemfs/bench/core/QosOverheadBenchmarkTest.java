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
        assertThat(QosOverheadBenchmark.roundOrder(List.of("fifo", "fair"), 0)).containsExactly("fifo", "fair");
        assertThat(QosOverheadBenchmark.roundOrder(List.of("fifo", "fair"), 1)).containsExactly("fair", "fifo");
        assertThat(QosOverheadBenchmark.roundOrder(List.of("fifo", "fair"), 2)).containsExactly("fifo", "fair");
        // Three labels: each takes every position once over three rounds.
        List<String> three = List.of("fifo-1", "fair", "fifo-2");
        assertThat(QosOverheadBenchmark.roundOrder(three, 0)).containsExactly("fifo-1", "fair", "fifo-2");
        assertThat(QosOverheadBenchmark.roundOrder(three, 1)).containsExactly("fair", "fifo-2", "fifo-1");
        assertThat(QosOverheadBenchmark.roundOrder(three, 2)).containsExactly("fifo-2", "fifo-1", "fair");
        assertThat(QosOverheadBenchmark.roundOrder(three, 3)).containsExactly("fifo-1", "fair", "fifo-2");
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

    private static Sample sample(int round, String policy, long requests, long elapsedNanos, long latencyNanos) {
        long[] latencies = new long[(int) requests];
        java.util.Arrays.fill(latencies, latencyNanos);
        return new Sample(round, Workload.RANDOM_READ_4K, policy, requests / (elapsedNanos / 1e9),
                latencyNanos / 1e6, requests, elapsedNanos, latencies, 0);
    }
}
