package org.xtreemfs.bench.qos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.scheduler.ReservationScheduler;
import picocli.CommandLine;

class SchedulerBenchmarkTest {

  @Test
  void offeredDemandGrowsSteadilyToTheRequestedShare() {
    // Proves the workload's demand meter only grows and ends at the requested share of capacity.
    PlacementWorkload workload = PlacementWorkload.generate(200, 2000, 3, 0.9);
    double[] shares = workload.offeredDemandShareAfter();
    for (int index = 1; index < shares.length; index++) {
      assertThat(shares[index]).isGreaterThanOrEqualTo(shares[index - 1]);
    }
    assertThat(shares[shares.length - 1]).isCloseTo(0.9, offset(0.01));
    assertThat(shares[shares.length / 2]).isBetween(0.3, 0.6);
  }

  @Test
  void lowerBoundNeverExceedsTheOsdsActuallyUsed() {
    // Proves the reported lower bound is a bound: no run uses fewer OSDs than it claims are needed.
    PlacementWorkload workload = PlacementWorkload.generate(100, 1000, 11, 1.0);
    StrategyRun run = StrategyRun.run(workload, new ReservationScheduler(), 0.8);
    assertThat(run.lowerBoundAtThreshold()).isPositive().isLessThanOrEqualTo(run.osdsUsedAtThreshold());
    assertThat(run.lowerBoundAtEnd()).isLessThanOrEqualTo(run.osdsUsedAtEnd());
    assertThat(run.acceptedBelowThreshold()).isLessThanOrEqualTo(run.offeredBelowThreshold());
  }

  @Test
  void smallRunReportsBothStrategies() {
    // Proves the command runs end to end and prints the figures for both rankings.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exitCode = new CommandLine(new SchedulerBenchmark(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .execute("--osds", "50", "--reservations", "400", "--rounds", "1");
    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exitCode).isZero();
    assertThat(output).contains("aligned-best-fit", "first-fit", "accepted while offered demand < 80 %",
        "lower bound");
  }
}
