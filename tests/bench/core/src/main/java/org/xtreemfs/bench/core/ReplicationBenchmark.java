package org.xtreemfs.bench.core;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumeUrl;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Write throughput of a replicated volume against an unreplicated one on the same cluster, through the Java client
 * (issue 12, benchmark c). Each round writes one file sequentially on each volume (the order alternating per
 * round, so neither side always meets a cold or a warm OSD), fsyncs it and deletes it; the ratio is replicated
 * over unreplicated of the medians. A replicated write is acknowledged when the chain's tail has it durably, so
 * the ratio is what chain replication costs a writer.
 */
@Command(name = "xtreemfs-bench-replication", mixinStandardHelpOptions = true,
        description = "Write throughput of a replicated volume against an unreplicated one, same cluster, same run.")
public final class ReplicationBenchmark implements Callable<Integer> {
    private static final int MIB = 1024 * 1024;

    @Option(names = "--replicated-volume", required = true,
            description = "Volume URL [pbrpc[s]://]host[:port]/volume of the replicated volume.")
    private String replicatedUrl;

    @Option(names = "--unreplicated-volume", required = true,
            description = "Volume URL of the unreplicated volume (same cluster, same stripe width).")
    private String unreplicatedUrl;

    @Option(names = "--size-mib", defaultValue = "128", description = "Size of each file in MiB (default ${DEFAULT-VALUE}).")
    private int sizeMib;

    @Option(names = "--block-kib", defaultValue = "1024", description = "Request size in KiB (default ${DEFAULT-VALUE}).")
    private int blockKib;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds, each writing one file per volume (default ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--warmup-mib", defaultValue = "8", description = "A file of this size written to each volume"
            + " before the measured rounds, not counted: the servers' first chain writes run cold and cost about twice"
            + " the CPU per MiB (tests/bench/README.md); 0 for none (default ${DEFAULT-VALUE}).")
    private int warmupMib;

    @Option(names = "--label", defaultValue = "", description = "A label for the output rows (e.g. the OSDs' emulation).")
    private String label;

    @Option(names = "--out", description = "Write every round and the medians as CSV to this file as well.")
    private Path csvOutput;

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new ReplicationBenchmark()).execute(arguments));
    }

    @Override
    public Integer call() throws Exception {
        if (sizeMib <= 0 || blockKib <= 0 || rounds <= 0 || warmupMib < 0) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--size-mib, --block-kib and --rounds must be positive and --warmup-mib not negative (got "
                            + sizeMib + ", " + blockKib + ", " + rounds + ", " + warmupMib + ")");
        }
        VolumeUrl replicated = VolumeUrl.parse(replicatedUrl);
        VolumeUrl unreplicated = VolumeUrl.parse(unreplicatedUrl);
        byte[] block = new byte[blockKib * 1024];
        new Random(7).nextBytes(block);
        long totalBytes = (long) sizeMib * MIB;
        double[] replicatedRates = new double[rounds];
        double[] unreplicatedRates = new double[rounds];
        StringBuilder csv = new StringBuilder("label,round,volume,mib_per_second\n");
        try (Client client = Client.connect(new InetSocketAddress(replicated.host(), replicated.port()),
                ClientOptions.defaults());
             Volume replicatedVolume = client.openVolume(replicated.volumeName());
             Volume unreplicatedVolume = client.openVolume(unreplicated.volumeName())) {
            if (warmupMib > 0) {
                for (Volume volume : List.of(replicatedVolume, unreplicatedVolume)) {
                    sequentialWrite(volume, "/bench-replication-warmup", block, (long) warmupMib * MIB);
                }
                progress("warm-up done (%d MiB per volume)", warmupMib);
            }
            for (int round = 0; round < rounds; round++) {
                boolean replicatedFirst = round % 2 == 0;
                for (int side = 0; side < 2; side++) {
                    boolean isReplicated = (side == 0) == replicatedFirst;
                    Volume volume = isReplicated ? replicatedVolume : unreplicatedVolume;
                    double rate = sequentialWrite(volume, "/bench-replication-" + round, block, totalBytes);
                    (isReplicated ? replicatedRates : unreplicatedRates)[round] = rate;
                    String name = isReplicated ? replicated.volumeName() : unreplicated.volumeName();
                    progress("round %d: %s %.2f MiB/s", round + 1, name, rate);
                    csv.append(String.format(Locale.ROOT, "%s,%d,%s,%.2f%n", label, round + 1, name, rate));
                }
            }
        }
        double replicatedMedian = median(replicatedRates);
        double unreplicatedMedian = median(unreplicatedRates);
        double ratio = replicatedMedian / unreplicatedMedian;
        System.out.printf(Locale.ROOT, "%s sequential write, %d MiB in %d KiB requests + fsync, %d rounds%n", label,
                sizeMib, blockKib, rounds);
        System.out.printf(Locale.ROOT, "  replicated   (%s): %s MiB/s, median %.2f%n", replicated.volumeName(),
                format(replicatedRates), replicatedMedian);
        System.out.printf(Locale.ROOT, "  unreplicated (%s): %s MiB/s, median %.2f%n", unreplicated.volumeName(),
                format(unreplicatedRates), unreplicatedMedian);
        System.out.printf(Locale.ROOT, "  replicated/unreplicated = %.2f%n", ratio);
        csv.append(String.format(Locale.ROOT, "%s,median,%s,%.2f%n%s,median,%s,%.2f%n%s,ratio,replicated/unreplicated,%.3f%n",
                label, replicated.volumeName(), replicatedMedian, label, unreplicated.volumeName(), unreplicatedMedian,
                label, ratio));
        if (csvOutput != null) {
            Files.createDirectories(csvOutput.toAbsolutePath().getParent());
            Files.writeString(csvOutput, csv.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    /** Writes a fresh file in order, fsyncs it (the rate includes making it durable), then deletes it. */
    private static double sequentialWrite(Volume volume, String path, byte[] block, long totalBytes)
            throws IOException {
        double rate = CoreBenchmark.volumeSequentialWrite(volume, path, block, totalBytes);
        volume.unlink(path);
        return rate;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static String format(double[] values) {
        List<String> parts = new ArrayList<>();
        for (double value : values) {
            parts.add(String.format(Locale.ROOT, "%.2f", value));
        }
        return String.join(" ", parts);
    }

    private static void progress(String format, Object... arguments) {
        System.err.printf("[bench] " + format + "%n", arguments);
    }
}
