package org.xtreemfs.bench.qos;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.wfq.Decision;
import org.xtreemfs.qos.wfq.FairPolicy;
import org.xtreemfs.qos.wfq.FifoPolicy;
import org.xtreemfs.qos.wfq.QueueBounds;
import org.xtreemfs.qos.wfq.QueueingPolicy;
import org.xtreemfs.qos.wfq.ShareRule;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * CPU time of one QoS decision (enqueue plus next, as the OSD's QoS stage makes them for every request) under the
 * fair policy and under FIFO, with the OSD's own rule ({@link ShareRule} of a random SSD OSD: 4 KiB requests,
 * half of the volumes reserved), for several numbers of active volumes and a few requests waiting (no overload).
 * Both policies are timed alternately in every repetition; the report gives the median nanoseconds per request
 * and the difference, which is the fair queue's cost to set against a request's service time (the end-to-end
 * figures of {@code tests/bench/core/qos-overhead}).
 */
@Command(name = "xtreemfs-bench-policy-overhead", mixinStandardHelpOptions = true,
        description = "Nanoseconds per request of the QoS stage's policy decision: fair queue against FIFO.")
public final class PolicyOverheadBenchmark implements Callable<Integer> {
    private static final int QUEUE_BOUND = 1000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Option(names = "--volumes", split = ",", defaultValue = "1,8,64",
            description = "Active volumes to measure with, comma-separated (default ${DEFAULT-VALUE}).")
    private int[] volumeCounts;

    @Option(names = "--waiting", defaultValue = "4", description = "Requests waiting in the policy besides the one each step adds; 0: the queue drains after every request, as on an OSD without overload (default ${DEFAULT-VALUE}).")
    private int waiting;

    @Option(names = "--requests", defaultValue = "200000", description = "Requests per timed run (default ${DEFAULT-VALUE}).")
    private int requests;

    @Option(names = "--repetitions", defaultValue = "15", description = "Timed runs per policy, alternated (default ${DEFAULT-VALUE}).")
    private int repetitions;

    /** Keeps the JIT from discarding the decisions. */
    private long sink;

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new PolicyOverheadBenchmark()).execute(arguments));
    }

    @Override
    public Integer call() {
        if (volumeCounts.length == 0 || waiting < 0 || waiting >= QUEUE_BOUND || requests < 1 || repetitions < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "need volumes, 0 <= --waiting < "
                    + QUEUE_BOUND + ", --requests >= 1 and --repetitions >= 1 (got " + Arrays.toString(volumeCounts)
                    + ", " + waiting + ", " + requests + ", " + repetitions + ")");
        }
        ShareRule rule = ShareRule.forOsd(OsdProfiles.sataSsd(OsdUsageType.RANDOM));
        System.out.printf("%-8s %12s %12s %10s %8s%n", "volumes", "fifo ns/req", "fair ns/req", "fair-fifo", "ratio");
        for (int volumes : volumeCounts) {
            String[] ids = new String[volumes];
            VolumeShare[] shares = new VolumeShare[volumes];
            for (int index = 0; index < volumes; index++) {
                // A volume id as the MRC makes it (a UUID, 36 characters), not a short name: see nanosPerRequest.
                ids[index] = UUID.nameUUIDFromBytes(("volume-" + index).getBytes(StandardCharsets.UTF_8)).toString();
                shares[index] = index % 2 == 0 ? new VolumeShare(ReservationType.RANDOM, 0, 100)
                        : VolumeShare.BEST_EFFORT;
            }
            double[] fifo = new double[repetitions];
            double[] fair = new double[repetitions];
            for (int repetition = -2; repetition < repetitions; repetition++) { // two untimed runs warm the JIT
                double fifoNanos = nanosPerRequest(new FifoPolicy<>(QUEUE_BOUND), ids, shares);
                double fairNanos = nanosPerRequest(new FairPolicy<>(rule, new QueueBounds(QUEUE_BOUND, QUEUE_BOUND),
                        FairPolicy.FLOW_IDLE_FORGET_NANOS_DEFAULT), ids, shares);
                if (repetition >= 0) {
                    fifo[repetition] = fifoNanos;
                    fair[repetition] = fairNanos;
                }
            }
            double fifoMedian = median(fifo);
            double fairMedian = median(fair);
            System.out.printf(Locale.ROOT, "%-8d %12.0f %12.0f %10.0f %8.2f%n", volumes, fifoMedian, fairMedian,
                    fairMedian - fifoMedian, fairMedian / fifoMedian);
        }
        System.err.println("(medians of " + repetitions + " alternated runs of " + requests + " requests; "
                + waiting + " waiting; checksum " + sink + ")");
        return 0;
    }

    /**
     * Keeps {@code waiting} requests queued and, per request, enqueues one (volumes in turn, 4 KiB) and takes the
     * policy's next decision, with the clock advancing 10 µs per request; returns this thread's CPU nanoseconds per
     * request (not wall time: on a shared machine the thread loses its CPU to others, which is not the policy's
     * cost). Every request carries its own copy of the volume's id, as on the OSD, where each request's capability
     * is decoded into a new String: a policy that looks the id up in a map compares it character by character,
     * which the same String instance every time would skip.
     */
    private double nanosPerRequest(QueueingPolicy<Integer> policy, String[] ids, VolumeShare[] shares) {
        long nowNanos = 1_000_000_000L;
        for (int index = 0; index < waiting; index++) {
            policy.enqueue(index, ids[index % ids.length], shares[index % ids.length], 4096, nowNanos);
        }
        String[] requestIds = new String[requests];
        for (int index = 0; index < requests; index++) {
            requestIds[index] = new String(ids[index % ids.length]);
        }
        long start = THREADS.getCurrentThreadCpuTime();
        for (int index = 0; index < requests; index++) {
            int volume = index % ids.length;
            policy.enqueue(index, requestIds[index], shares[volume], 4096, nowNanos);
            Decision<Integer> decision = policy.next(nowNanos);
            if (decision instanceof Decision.Dispatch<Integer> dispatch) {
                sink += dispatch.request();
            } else {
                throw new IllegalStateException("no dispatch with " + policy.size() + " requests waiting: " + decision);
            }
            nowNanos += 10_000;
        }
        long elapsed = THREADS.getCurrentThreadCpuTime() - start;
        List<Integer> rest = new ArrayList<>(policy.removeAll());
        sink += rest.size();
        return (double) elapsed / requests;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
