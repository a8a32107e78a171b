package org.xtreemfs.bench.core;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
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
 * write, {@code --clients} clients with one request outstanding each, so no overload) against volumes on OSDs that
 * differ only in {@code osd.qos.policy}, alternated within every round so that drift of the machine hits every
 * policy alike. Reports per workload and policy the throughput and the p99 latency, and the ratio of each policy
 * to the first one given (the baseline) as the median over the rounds with its spread (lowest, highest).
 *
 * <p>Each client has its own file per volume, written in full before the first round, so reads hit data and
 * writes overwrite it (no file growth during the measurement). Within a round the policies run in ABAB… order
 * on even rounds and BABA… on odd ones, which cancels a linear drift over a pair of rounds.
 */
@Command(name = "xtreemfs-bench-qos-overhead", mixinStandardHelpOptions = true,
        description = "Fair queue against FIFO on unemulated OSDs without overload: throughput and p99 latency"
                + " of 4 KiB random and 1 MiB sequential I/O, alternated per round; reports median ratios.")
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

    /** What one (round, workload, policy) run measured; {@code latenciesNanos} of every request, for the pooled p99. */
    record Sample(int round, Workload workload, String policy, double throughput, double p99Ms, long requests,
            long elapsedNanos, long[] latenciesNanos) {}

    @Option(names = "--volume", required = true, paramLabel = "POLICY=URL",
            description = "A policy's label and its volume's URL [pbrpc://]host[:port]/volume, e.g. "
                    + "fair=127.0.0.1:32638/overhead; repeat per policy; the first is the baseline of the ratios.")
    private Map<String, String> volumes = new LinkedHashMap<>();

    @Option(names = "--clients", defaultValue = "4", description = "Clients, one request outstanding each (default ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--rounds", defaultValue = "30", description = "Measured rounds, after one warm-up round (default ${DEFAULT-VALUE}).")
    private int rounds;

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

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new QosOverheadBenchmark()).execute(arguments));
    }

    @Override
    public Integer call() throws Exception {
        if (clients <= 0 || rounds <= 0 || seconds <= 0 || fileMib <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--clients, --rounds, --seconds and"
                    + " --file-mib must be positive (got " + clients + ", " + rounds + ", " + seconds + ", " + fileMib + ")");
        }
        List<String> policies = new ArrayList<>(volumes.keySet());
        Map<String, List<Client>> connections = new LinkedHashMap<>();
        Map<String, List<Volume>> openVolumes = new LinkedHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Sample> samples = new ArrayList<>();
        try {
            for (String policy : policies) {
                VolumeUrl url = VolumeUrl.parse(volumes.get(policy));
                List<Client> policyClients = new ArrayList<>();
                List<Volume> policyVolumes = new ArrayList<>();
                for (int client = 0; client < clients; client++) {
                    Client connection = Client.connect(new InetSocketAddress(url.host(), url.port()), ClientOptions.defaults());
                    policyClients.add(connection);
                    policyVolumes.add(connection.openVolume(url.volumeName()));
                }
                connections.put(policy, policyClients);
                openVolumes.put(policy, policyVolumes);
                progress("%s: writing %d files of %d MiB", policy, clients, fileMib);
                prepareFiles(pool, policyVolumes);
            }
            for (int round = 0; round <= rounds; round++) {
                progress(round == 0 ? "warm-up round" : "round %d of %d", round, rounds);
                for (Workload workload : Workload.values()) {
                    for (String policy : roundOrder(policies, round)) {
                        Sample sample = measure(pool, openVolumes.get(policy), workload, policy, round);
                        if (round > 0) {
                            samples.add(sample);
                        }
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            for (List<Volume> policyVolumes : openVolumes.values()) {
                for (Volume volume : policyVolumes) {
                    volume.close();
                }
            }
            connections.values().forEach(list -> list.forEach(Client::close));
        }
        print(System.out, policies, samples);
        if (csvOutput != null) {
            writeCsv(samples);
        }
        return 0;
    }

    /** Even rounds in the given order, odd rounds reversed, so a drift within a round favours no policy. */
    static List<String> roundOrder(List<String> policies, int round) {
        List<String> order = new ArrayList<>(policies);
        if (round % 2 == 1) {
            java.util.Collections.reverse(order);
        }
        return order;
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
    private Sample measure(ExecutorService pool, List<Volume> policyVolumes, Workload workload, String policy,
            int round) throws Exception {
        long durationNanos = (long) (seconds * 1e9);
        long fileBytes = (long) fileMib * MIB;
        List<Future<long[]>> results = new ArrayList<>();
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
        Sample sample = new Sample(round, workload, policy, workload.throughput(all.length, elapsedNanos), p99Ms,
                all.length, elapsedNanos, all);
        progress("  %-22s %-5s %10.1f %s  p99 %.3f ms", workload.label, policy, sample.throughput(), workload.unit(), p99Ms);
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
        StringBuilder csv = new StringBuilder("round,workload,policy,unit,throughput,p99_ms,requests\n");
        for (Sample sample : samples) {
            csv.append(String.format(Locale.ROOT, "%d,%s,%s,%s,%.3f,%.4f,%d%n", sample.round(), sample.workload().label,
                    sample.policy(), sample.workload().unit(), sample.throughput(), sample.p99Ms(), sample.requests()));
        }
        Files.writeString(csvOutput, csv.toString(), StandardCharsets.UTF_8);
    }

    private static void progress(String format, Object... arguments) {
        System.err.printf("[qos-overhead] " + format + "%n", arguments);
    }
}
