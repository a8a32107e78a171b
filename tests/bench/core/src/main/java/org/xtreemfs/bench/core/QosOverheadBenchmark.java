package org.xtreemfs.bench.core;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumeUrl;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The QoS stage's cost: the same closed-loop workloads (4 KiB random read and write, 1 MiB sequential read and
 * write, {@code --clients} clients with one request outstanding each, so no overload) against one volume on one
 * unemulated OSD whose queueing policy is switched at run time between intervals ({@code POST /qos/policy} on the
 * OSD's status port, from this host), so that every policy runs on the same cluster, disk, files and load. The
 * labels of {@code --policies} are alternated within every round, their order rotated and reversed from round to round so that
 * drift of the machine hits every label alike. A policy given twice ({@code fifo,fair,fifo}: labels fifo-1, fair,
 * fifo-2) measures the noise floor in the same run: fifo-2 against fifo-1 is the same policy against itself,
 * switched the same way. Reports per workload and label the throughput and the p99 latency, and the ratio of each
 * label to the first (the baseline) as the median over the rounds with its spread (lowest, highest), and every
 * interval's figures.
 *
 * <p>Why one cluster and not one per policy: two clusters on one shared disk differed by ±20 % in p99 between
 * themselves (their files lie in different places, their JVMs compile and collect at different moments), more than
 * the 5 % the overhead must be shown within.
 *
 * <p>Each client has its own file, written in full before the first round, so reads hit data and writes overwrite
 * it (no file growth during the measurement).
 */
public final class QosOverheadBenchmark implements Callable<Integer> {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;

    /** One workload: its request size and whether it reads, and whether offsets are random. */
    enum Workload {
        RANDOM_READ_4K("random read 4 KiB", 4 * KIB, true, true),
        RANDOM_WRITE_4K("random write 4 KiB", 4 * KIB, false, true),
        SEQUENTIAL_READ_1M("sequential read 1 MiB", MIB, true, false),
        SEQUENTIAL_WRITE_1M("sequential write 1 MiB", MIB, false, false);

        final String label;
        final int requestBytes;
        final boolean read;
        final boolean random;

        Workload(String label, int requestBytes, boolean read, boolean random) {
            this.label = label;
            this.requestBytes = requestBytes;
            this.read = read;
            this.random = random;
        }

        /** The unit of its throughput figure: IOPS for small random requests, MiB/s for large sequential ones. */
        String unit() {
            return random ? "IOPS" : "MiB/s";
        }

        double throughput(long requests, long nanos) {
            double seconds = nanos / 1e9;
            return random ? requests / seconds : requests * (double) requestBytes / MIB / seconds;
        }
    }

    /**
     * What one (round, workload, policy) run measured; {@code latenciesNanos} of every request, for the pooled p99;
     * {@code startUnixMs} when it began, so the OSD's and the client's JVM pauses can be laid on it (qos-overhead).
     */
    record Sample(int round, Workload workload, String policy, double throughput, double p99Ms, long requests,
            long elapsedNanos, long[] latenciesNanos, long startUnixMs) {}

    @Option(names = "--volume", required = true, paramLabel = "URL",
            description = "The volume's URL [pbrpc[s]://]host[:port]/volume, e.g. 127.0.0.1:32638/overhead; its files"
                    + " must lie on the one OSD whose policy --policy-url switches.")
    private String volumeUrl;

    @Option(names = "--policy-url", required = true, paramLabel = "URL",
            description = "The OSD's policy switch, http://127.0.0.1:STATUS_PORT/qos/policy (servers/osd/README.md).")
    private URI policyUrl;

    @Option(names = "--policies", defaultValue = "fifo,fair,fifo", split = ",",
            description = "Policies (fair, fifo) alternated interval by interval; the first is the baseline of the"
                    + " ratios; one given twice gets labels -1, -2 (default ${DEFAULT-VALUE}: fair against fifo, and"
                    + " fifo against itself as the noise floor).")
    private List<String> policies;

    @Option(names = "--clients", defaultValue = "4", description = "Clients, one request outstanding each (default ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--rounds", defaultValue = "30", description = "Measured rounds, after the warm-up rounds (default ${DEFAULT-VALUE}).")
    private int rounds;

    /*
     * Two, not one: with a single warm-up round the first measured interval (round 1's random read, which the
     * rotation gives to the same label in every run) came in at 0.63 and 0.76 of its round's mean with a p99 of
     * 3.6-3.8 ms against about 1 ms in two runs, biasing that label's pooled figures.
     */
    @Option(names = "--warm-up-rounds", defaultValue = "2",
            description = "Rounds run in full before the measured ones and not counted (default ${DEFAULT-VALUE}).")
    private int warmUpRounds;

    @Option(names = "--seconds", defaultValue = "1",
            description = "Duration of one workload on one volume in one round (default ${DEFAULT-VALUE}); short slices"
                    + " alternated often cancel the drift of a shared machine better than long ones.")
    private double seconds;

    @Option(names = "--file-mib", defaultValue = "64", description = "Size of each client's file (default ${DEFAULT-VALUE}).")
    private int fileMib;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the random offsets (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--out", description = "Write every sample as CSV to this file as well.")
    private Path csvOutput;

    @Option(names = "--resamples", defaultValue = "2000",
            description = "Round-bootstrap resamples behind each confidence interval of the bound's check (default"
                    + " ${DEFAULT-VALUE}).")
    private int resamples;

    /** Issue 9's bound: the fair queue costs at most 5 % throughput and at most 5 % p99 latency against FIFO. */
    static final double OVERHEAD_BOUND = 0.05;
    /** The confidence of the intervals the bound is judged by. */
    static final double CONFIDENCE = 0.95;

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new QosOverheadBenchmark()).execute(arguments));
    }

    @Override
    public Integer call() throws Exception {
        if (warmUpRounds < 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--warm-up-rounds must not be negative (got "
                    + warmUpRounds + ")");
        }
        if (clients <= 0 || rounds <= 0 || seconds <= 0 || fileMib <= 0 || resamples <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--clients, --rounds, --seconds,"
                    + " --file-mib and --resamples must be positive (got " + clients + ", " + rounds + ", " + seconds
                    + ", " + fileMib + ", " + resamples + ")");
        }
        for (String policy : policies) {
            if (!policy.equals("fair") && !policy.equals("fifo")) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--policies takes fair and fifo, not '"
                        + policy + "'");
            }
        }
        List<String> labels = labels(policies);
        if (labels.size() < 2) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--policies needs at least two, got "
                    + policies);
        }
        VolumeUrl url = VolumeUrl.parse(volumeUrl);
        List<Client> connections = new ArrayList<>();
        List<Volume> openVolumes = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        List<Sample> samples = new ArrayList<>();
        try {
            for (int client = 0; client < clients; client++) {
                Client connection = Client.connect(new InetSocketAddress(url.host(), url.port()), ClientOptions.defaults());
                connections.add(connection);
                openVolumes.add(connection.openVolume(url.volumeName()));
            }
            progress("writing %d files of %d MiB", clients, fileMib);
            prepareFiles(pool, openVolumes);
            // Warm-up rounds are numbered 1 - warmUpRounds .. 0; measured ones 1 .. rounds.
            for (int round = 1 - warmUpRounds; round <= rounds; round++) {
                if (round <= 0) {
                    progress("warm-up round %d of %d", round + warmUpRounds, warmUpRounds);
                } else {
                    progress("round %d of %d", round, rounds);
                }
                for (Workload workload : Workload.values()) {
                    for (String label : roundOrder(labels, round)) {
                        switchPolicy(http, policyOf(label));
                        Sample sample = measure(pool, openVolumes, workload, label, round);
                        if (round > 0) {
                            samples.add(sample);
                        }
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            for (Volume volume : openVolumes) {
                volume.close();
            }
            connections.forEach(Client::close);
        }
        print(System.out, labels, samples);
        printBound(System.out, labels, samples, resamples, seed);
        printIntervals(System.out, labels, samples);
        if (csvOutput != null) {
            writeCsv(samples);
        }
        return 0;
    }

    /**
     * The labels in round {@code round}: over every 2n rounds (n labels) the list rotated by 0..n-1, then the same
     * rotations reversed. So each label takes every position equally often and a drift within a round favours none
     * (for two: ABBA), and, for two or three labels, each label follows each other label equally often within a
     * workload. The rotations alone did not give that: with fifo-1, fair, fifo-2, fifo-2 followed fair in two of
     * three rounds, so anything an interval leaves behind for the next (a policy switch, the page cache) landed on
     * one label.
     */
    static List<String> roundOrder(List<String> labels, int round) {
        int sequence = Math.floorMod(round, 2 * labels.size());
        List<String> order = new ArrayList<>(labels);
        java.util.Collections.rotate(order, -(sequence % labels.size()));
        if (sequence >= labels.size()) {
            java.util.Collections.reverse(order);
        }
        return order;
    }

    /** One label per policy given: the policy's name, numbered (fifo-1, fifo-2) when it is given more than once. */
    static List<String> labels(List<String> policies) {
        List<String> labels = new ArrayList<>();
        for (int index = 0; index < policies.size(); index++) {
            String policy = policies.get(index);
            if (java.util.Collections.frequency(policies, policy) == 1) {
                labels.add(policy);
            } else {
                labels.add(policy + "-" + (java.util.Collections.frequency(policies.subList(0, index), policy) + 1));
            }
        }
        return labels;
    }

    /** The policy a label stands for (fifo-2: fifo). */
    static String policyOf(String label) {
        int dash = label.indexOf('-');
        return dash < 0 ? label : label.substring(0, dash);
    }

    /** Switches the OSD's policy (also to the one it runs: every interval starts from a fresh policy alike). */
    private void switchPolicy(HttpClient http, String policy) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(policyUrl).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(policy)).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("POST " + policy + " to " + policyUrl + " answered " + answer.statusCode() + ": "
                    + answer.body().strip());
        }
    }

    private void prepareFiles(ExecutorService pool, List<Volume> policyVolumes) throws Exception {
        List<Future<?>> writers = new ArrayList<>();
        for (int client = 0; client < clients; client++) {
            Volume volume = policyVolumes.get(client);
            String path = filePath(client);
            writers.add(pool.submit(() -> {
                byte[] block = new byte[MIB];
                new SplittableRandom(seed).nextBytes(block);
                try (FileHandle file = volume.open(path, OpenFlags.O_CREAT | OpenFlags.O_TRUNC | OpenFlags.O_RDWR, 0644)) {
                    for (long offset = 0; offset < (long) fileMib * MIB; offset += MIB) {
                        file.write(offset, block);
                    }
                    file.fsync();
                }
                return null;
            }));
        }
        for (Future<?> writer : writers) {
            writer.get();
        }
    }

    private static String filePath(int client) {
        return "/overhead-client-" + client;
    }

    /** Runs one workload on one volume with every client for {@code --seconds}; returns what it measured. */
    private Sample measure(ExecutorService pool, List<Volume> policyVolumes, Workload workload, String label,
            int round) throws Exception {
        long durationNanos = (long) (seconds * 1e9);
        long fileBytes = (long) fileMib * MIB;
        List<Future<long[]>> results = new ArrayList<>();
        long startUnixMs = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        long endNanos = startNanos + durationNanos;
        for (int client = 0; client < clients; client++) {
            Volume volume = policyVolumes.get(client);
            String path = filePath(client);
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + round * 101L + client);
            results.add(pool.submit(() -> runClient(volume, path, workload, fileBytes, random, endNanos)));
        }
        long[][] latencies = new long[clients][];
        for (int client = 0; client < clients; client++) {
            latencies[client] = results.get(client).get();
        }
        long elapsedNanos = System.nanoTime() - startNanos;
        long[] all = concatenate(latencies);
        double p99Ms = percentile(all, 0.99) / 1e6;
        Sample sample = new Sample(round, workload, label, workload.throughput(all.length, elapsedNanos), p99Ms,
                all.length, elapsedNanos, all, startUnixMs);
        progress("  %-22s %-6s %10.1f %s  p99 %.3f ms", workload.label, label, sample.throughput(), workload.unit(), p99Ms);
        return sample;
    }

    /** One client's closed loop until {@code endNanos}: returns the latency of each request it completed. */
    private static long[] runClient(Volume volume, String path, Workload workload, long fileBytes,
            SplittableRandom random, long endNanos) throws IOException {
        byte[] buffer = new byte[workload.requestBytes];
        random.nextBytes(buffer);
        long requestsInFile = fileBytes / workload.requestBytes;
        long sequentialIndex = random.nextLong(requestsInFile);
        long[] latencies = new long[1024];
        int count = 0;
        int flags = workload.read ? OpenFlags.O_RDONLY : OpenFlags.O_WRONLY;
        try (FileHandle file = volume.open(path, flags, 0)) {
            while (true) {
                long before = System.nanoTime();
                if (before >= endNanos) {
                    break;
                }
                long index = workload.random ? random.nextLong(requestsInFile) : sequentialIndex++ % requestsInFile;
                long offset = index * workload.requestBytes;
                if (workload.read) {
                    int read = file.read(offset, buffer, 0, buffer.length);
                    if (read != buffer.length) {
                        throw new IOException("read " + read + " of " + buffer.length + " bytes at " + offset + " of " + path);
                    }
                } else {
                    file.write(offset, buffer);
                }
                if (count == latencies.length) {
                    latencies = Arrays.copyOf(latencies, count * 2);
                }
                latencies[count++] = System.nanoTime() - before;
            }
        }
        return Arrays.copyOf(latencies, count);
    }

    private static long[] concatenate(long[][] parts) {
        int total = 0;
        for (long[] part : parts) {
            total += part.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /** The nearest-rank percentile ({@code fraction} in (0, 1]) of the values; NaN when there are none. */
    static double percentile(long[] values, double fraction) {
        if (values.length == 0) {
            return Double.NaN;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** The median of the values (the mean of the middle two for an even count). */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * Per round the ratio of {@code policy}'s figure to the baseline's of the same round and workload; the
     * ratio within one round is what cancels the machine's drift between rounds.
     */
    static double[] ratios(List<Sample> samples, Workload workload, String baseline, String policy, boolean latency) {
        Map<Integer, Double> baselineFigures = new LinkedHashMap<>();
        for (Sample sample : samples) {
            if (sample.workload() == workload && sample.policy().equals(baseline)) {
                baselineFigures.put(sample.round(), latency ? sample.p99Ms() : sample.throughput());
            }
        }
        List<Double> ratios = new ArrayList<>();
        for (Sample sample : samples) {
            Double base = baselineFigures.get(sample.round());
            if (sample.workload() == workload && sample.policy().equals(policy) && base != null) {
                ratios.add((latency ? sample.p99Ms() : sample.throughput()) / base);
            }
        }
        return ratios.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * One policy's figure over all its rounds of a workload: requests over time summed, and the p99 of every
     * request's latency. Fine alternation gives every policy the same mix of quiet and busy moments, so the pooled
     * figures compare as well as the per-round ratios and are less sensitive to a single disturbed slice.
     */
    static double pooled(List<Sample> samples, Workload workload, String policy, boolean latency) {
        List<Sample> mine = samples.stream().filter(s -> s.workload() == workload && s.policy().equals(policy)).toList();
        if (latency) {
            long[][] parts = mine.stream().map(Sample::latenciesNanos).toArray(long[][]::new);
            return percentile(concatenate(parts), 0.99) / 1e6;
        }
        return workload.throughput(mine.stream().mapToLong(Sample::requests).sum(),
                mine.stream().mapToLong(Sample::elapsedNanos).sum());
    }

    private static void print(PrintStream out, List<String> policies, List<Sample> samples) {
        String baseline = policies.get(0);
        out.printf("%-22s %-6s", "workload", "unit");
        for (String policy : policies) {
            out.printf(" %10s %8s", policy, "p99 ms");
        }
        for (String policy : policies.subList(1, policies.size())) {
            String label = policy + "/" + baseline;
            out.printf("  %-9s %-9s %-24s %-24s", "thr " + label, "p99 " + label, "thr per round", "p99 per round");
        }
        out.println();
        for (Workload workload : Workload.values()) {
            out.printf("%-22s %-6s", workload.label, workload.unit());
            for (String policy : policies) {
                out.printf(" %10.1f %8.3f", pooled(samples, workload, policy, false), pooled(samples, workload, policy, true));
            }
            for (String policy : policies.subList(1, policies.size())) {
                out.printf("  %-9.3f %-9.3f %-24s %-24s",
                        pooled(samples, workload, policy, false) / pooled(samples, workload, baseline, false),
                        pooled(samples, workload, policy, true) / pooled(samples, workload, baseline, true),
                        spread(ratios(samples, workload, baseline, policy, false)),
                        spread(ratios(samples, workload, baseline, policy, true)));
            }
            out.println();
        }
        out.println("(figures pooled over the rounds: requests over time, p99 of all requests; per round: median"
                + " (lowest-highest) of the ratios of the same round)");
    }

    /**
     * The bound's check: per workload, fair against FIFO (every label of each policy pooled: fifo-1 and fifo-2 are
     * both FIFO) in throughput and p99, each with its round-bootstrap interval ({@link PooledRatioInterval}) and
     * whether the bound holds, is exceeded, or lies inside the noise; and FIFO against itself (the second FIFO label
     * against the first), whose interval is the noise floor of the same run. Nothing is printed without both
     * policies.
     */
    static void printBound(PrintStream out, List<String> labels, List<Sample> samples, int resamples, long seed) {
        java.util.Set<String> fair = new java.util.TreeSet<>();
        List<String> fifo = new ArrayList<>();
        for (String label : labels) {
            if (policyOf(label).equals("fair")) {
                fair.add(label);
            } else {
                fifo.add(label);
            }
        }
        if (fair.isEmpty() || fifo.isEmpty()) {
            return;
        }
        out.println();
        out.printf(Locale.ROOT, "the bound (issue 9): fair costs <= %.0f %% throughput and <= %.0f %% p99 against FIFO;"
                + " pooled ratios with their %.0f %% round-bootstrap intervals (%d resamples of the rounds)%n",
                100 * OVERHEAD_BOUND, 100 * OVERHEAD_BOUND, 100 * CONFIDENCE, resamples);
        double throughputMinimum = 1 - OVERHEAD_BOUND;
        double latencyMaximum = 1 + OVERHEAD_BOUND;
        java.util.Set<String> allFifo = new java.util.TreeSet<>(fifo);
        boolean noise = fifo.size() >= 2;
        out.printf("%-22s  %-26s %-12s  %-26s %-12s%s%n", "workload", "thr fair/FIFO", "verdict", "p99 fair/FIFO",
                "verdict", noise ? String.format("  %-26s %-26s", "thr " + fifo.get(1) + "/" + fifo.get(0),
                        "p99 " + fifo.get(1) + "/" + fifo.get(0)) : "");
        List<String> unresolved = new ArrayList<>();
        for (Workload workload : Workload.values()) {
            PooledRatioInterval.Interval throughput = PooledRatioInterval.of(samples, workload, fair, allFifo, false,
                    resamples, CONFIDENCE, seed);
            PooledRatioInterval.Interval latency = PooledRatioInterval.of(samples, workload, fair, allFifo, true,
                    resamples, CONFIDENCE, seed);
            PooledRatioInterval.Verdict throughputVerdict = throughput.against(throughputMinimum,
                    Double.POSITIVE_INFINITY);
            PooledRatioInterval.Verdict latencyVerdict = latency.against(Double.NEGATIVE_INFINITY, latencyMaximum);
            String floor = "";
            if (noise) {
                floor = String.format("  %-26s %-26s",
                        interval(PooledRatioInterval.of(samples, workload, java.util.Set.of(fifo.get(1)),
                                java.util.Set.of(fifo.get(0)), false, resamples, CONFIDENCE, seed)),
                        interval(PooledRatioInterval.of(samples, workload, java.util.Set.of(fifo.get(1)),
                                java.util.Set.of(fifo.get(0)), true, resamples, CONFIDENCE, seed)));
            }
            out.printf("%-22s  %-26s %-12s  %-26s %-12s%s%n", workload.label, interval(throughput),
                    throughputVerdict.name().toLowerCase(Locale.ROOT).replace('_', ' '), interval(latency),
                    latencyVerdict.name().toLowerCase(Locale.ROOT).replace('_', ' '), floor);
            if (throughputVerdict == PooledRatioInterval.Verdict.NOT_RESOLVED) {
                unresolved.add(workload.label + " throughput");
            }
            if (latencyVerdict == PooledRatioInterval.Verdict.NOT_RESOLVED) {
                unresolved.add(workload.label + " p99");
            }
        }
        out.println("(holds: the whole interval within the bound; exceeded: the whole interval beyond it; not resolved:"
                + " the bound lies inside the interval, so this run's noise cannot tell; more rounds narrow the"
                + " intervals by about the square root of their number)");
        if (!unresolved.isEmpty()) {
            out.println("not resolved in this run: " + String.join(", ", unresolved));
        }
    }

    private static String interval(PooledRatioInterval.Interval interval) {
        return String.format(Locale.ROOT, "%.3f (%.3f-%.3f)", interval.ratio(), interval.lower(), interval.upper());
    }

    /** Every interval: per workload and round, each label's throughput and p99. */
    private static void printIntervals(PrintStream out, List<String> labels, List<Sample> samples) {
        out.println();
        out.println("every interval (throughput, p99 ms):");
        for (Workload workload : Workload.values()) {
            out.printf("%s (%s)%n", workload.label, workload.unit());
            out.printf("%6s", "round");
            for (String label : labels) {
                out.printf(" %10s %8s", label, "p99 ms");
            }
            out.println();
            samples.stream().filter(sample -> sample.workload() == workload).mapToInt(Sample::round).distinct()
                    .sorted().forEach(round -> {
                        out.printf("%6d", round);
                        for (String label : labels) {
                            Sample sample = samples.stream().filter(candidate -> candidate.workload() == workload
                                    && candidate.round() == round && candidate.policy().equals(label)).findFirst()
                                    .orElse(null);
                            out.printf(sample == null ? " %10s %8s" : " %10.1f %8.3f",
                                    sample == null ? "-" : sample.throughput(), sample == null ? "-" : sample.p99Ms());
                        }
                        out.println();
                    });
        }
    }

    /** "median (lowest-highest)" of the ratios. */
    static String spread(double[] ratios) {
        if (ratios.length == 0) {
            return "-";
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.3f (%.3f-%.3f)", median(sorted), sorted[0], sorted[sorted.length - 1]);
    }

    private void writeCsv(List<Sample> samples) throws IOException {
        Path parent = csvOutput.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        StringBuilder csv = new StringBuilder(
                "round,workload,policy,unit,throughput,p99_ms,requests,start_unix_ms,elapsed_ms\n");
        for (Sample sample : samples) {
            csv.append(String.format(Locale.ROOT, "%d,%s,%s,%s,%.3f,%.4f,%d,%d,%.3f%n", sample.round(),
                    sample.workload().label, sample.policy(), sample.workload().unit(), sample.throughput(),
                    sample.p99Ms(), sample.requests(), sample.startUnixMs(), sample.elapsedNanos() / 1e6));
        }
        Files.writeString(csvOutput, csv.toString(), StandardCharsets.UTF_8);
    }

    private static void progress(String format, Object... arguments) {
        System.err.printf("[qos-overhead] " + format + "%n", arguments);
    }
}
