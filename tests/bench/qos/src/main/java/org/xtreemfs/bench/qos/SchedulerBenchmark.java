package org.xtreemfs.bench.qos;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.Units;
import org.xtreemfs.qos.scheduler.FreeResources;
import org.xtreemfs.qos.scheduler.PlacementRanking;
import org.xtreemfs.qos.scheduler.ReservationScheduler;
import org.xtreemfs.qos.scheduler.SchedulerPolicy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Places a seeded stream of reservations on a mixed cluster with the aligned best-fit ranking and with plain
 * first fit, and reports for each: time, acceptance while offered demand is below the threshold (mission §5:
 * at least 95 % below 80 %), OSDs used against a lower bound, and the largest reservations still admissible.
 */
@Command(name = "SchedulerBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Places reservations on a mixed cluster with aligned best fit and with first fit, and compares them.",
        "Targets (mission §5): 10,000 reservations on 1,000 OSDs in under 2 s; >= 95 %% accepted below 80 %% demand."})
public final class SchedulerBenchmark implements Callable<Integer> {
  private static final double NANOS_PER_SECOND = 1e9;
  private static final double PERCENT = 100;
  private static final double BYTES_PER_MIB = Units.BYTES_PER_MIB;
  private static final double BYTES_PER_GIB = Units.BYTES_PER_GIB;

  @Option(names = "--osds", description = "number of OSDs (default ${DEFAULT-VALUE})")
  int osdCount = 1000;

  @Option(names = "--reservations", description = "number of reservations offered (default ${DEFAULT-VALUE})")
  int reservationCount = 10_000;

  @Option(names = "--final-demand-percent",
      description = "offered demand after the last reservation, in %% of capacity (default ${DEFAULT-VALUE})")
  int finalDemandPercent = 100;

  @Option(names = "--threshold-percent",
      description = "acceptance is reported for requests offered below this demand, in %% (default ${DEFAULT-VALUE})")
  int thresholdPercent = 80;

  @Option(names = "--stripe-width-max", description = "widest stripe per volume (default ${DEFAULT-VALUE})")
  int stripeWidthMax = SchedulerPolicy.STRIPE_WIDTH_MAX_DEFAULT;

  @Option(names = "--rounds", description = "passes per strategy; the first runs on a cold JVM (default ${DEFAULT-VALUE})")
  int rounds = 2;

  @Option(names = "--seed", description = "workload seed (default ${DEFAULT-VALUE})")
  long seed = 42;

  private final PrintStream out;

  SchedulerBenchmark(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] arguments) {
    System.exit(new CommandLine(new SchedulerBenchmark(System.out)).execute(arguments));
  }

  @Override
  public Integer call() {
    if (osdCount < 1 || reservationCount < 1 || rounds < 1 || stripeWidthMax < 1 || finalDemandPercent < 1) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--osds, --reservations, --rounds, --stripe-width-max and --final-demand-percent must be positive");
    }
    PlacementWorkload workload = PlacementWorkload.generate(osdCount, reservationCount, seed,
        finalDemandPercent / PERCENT);
    out.printf(Locale.ROOT, "%d reservations on %d OSDs, seed %d; offered demand grows to %d %% of capacity%n",
        reservationCount, osdCount, seed, finalDemandPercent);
    for (PlacementRanking ranking : PlacementRanking.values()) {
      report(ranking, runRounds(workload, new ReservationScheduler(new SchedulerPolicy(ranking, stripeWidthMax))));
    }
    return 0;
  }

  private StrategyRun[] runRounds(PlacementWorkload workload, ReservationScheduler scheduler) {
    StrategyRun[] runs = new StrategyRun[rounds];
    for (int round = 0; round < rounds; round++) {
      runs[round] = StrategyRun.run(workload, scheduler, thresholdPercent / PERCENT);
    }
    return runs;
  }

  private void report(PlacementRanking ranking, StrategyRun[] runs) {
    StrategyRun first = runs[0];
    StrategyRun fastest = first;
    for (StrategyRun run : runs) {
      fastest = run.cpuNanos() < fastest.cpuNanos() ? run : fastest;
    }
    out.printf(Locale.ROOT, "%s%n", ranking.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    out.printf(Locale.ROOT, "  time for %d admissions: first pass %.3f s CPU (%.3f s wall); best of %d: %.3f s CPU"
        + " (%.3f s wall)%n", reservationCount, seconds(first.cpuNanos()), seconds(first.elapsedNanos()), runs.length,
        seconds(fastest.cpuNanos()), seconds(fastest.elapsedNanos()));
    out.printf(Locale.ROOT, "  accepted while offered demand < %d %%: %d of %d (%.2f %%); rejected there: %s%n",
        thresholdPercent, first.acceptedBelowThreshold(), first.offeredBelowThreshold(),
        PERCENT * first.acceptedBelowThreshold() / Math.max(1, first.offeredBelowThreshold()),
        byType(first.rejectedBelowThresholdByType()));
    out.printf(Locale.ROOT, "  accepted overall: %d of %d; rejected: %s%n", first.acceptedTotal(), reservationCount,
        byType(first.rejectedByType()));
    out.printf(Locale.ROOT, "  OSDs used when demand reached %d %%: %d (lower bound %d); at the end: %d (lower bound %d)%n",
        thresholdPercent, first.osdsUsedAtThreshold(), first.lowerBoundAtThreshold(), first.osdsUsedAtEnd(),
        first.lowerBoundAtEnd());
    FreeResources free = first.freeAtEnd();
    out.printf(Locale.ROOT, "  largest admissible at the end: sequential %.1f MiB/s or %.1f GiB, random %d IOPS or %.1f GiB,"
        + " cold %.1f GiB, best-effort %.1f GiB%n",
        free.headroom(ReservationType.SEQUENTIAL).throughputBytesPerSecondMax() / BYTES_PER_MIB,
        free.headroom(ReservationType.SEQUENTIAL).capacityBytesMax() / BYTES_PER_GIB,
        free.headroom(ReservationType.RANDOM).iopsMax(),
        free.headroom(ReservationType.RANDOM).capacityBytesMax() / BYTES_PER_GIB,
        free.headroom(ReservationType.COLD).capacityBytesMax() / BYTES_PER_GIB,
        free.headroom(ReservationType.BEST_EFFORT).capacityBytesMax() / BYTES_PER_GIB);
  }

  private static String byType(int[] countByType) {
    StringBuilder text = new StringBuilder();
    for (ReservationType type : ReservationType.values()) {
      text.append(text.length() == 0 ? "" : ", ").append(Units.displayName(type)).append(' ')
          .append(countByType[type.ordinal()]);
    }
    return text.toString();
  }

  private static double seconds(long nanos) {
    return nanos / NANOS_PER_SECOND;
  }
}
