package org.xtreemfs.bench.hadoop;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
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
 * TestDFSIO's two phases in one process: write N files of S MiB sequentially in requests of B KiB (each file made
 * durable before it counts: hsync / fsync / FileChannel.force), then read them back, the same way through three
 * paths in one run: Hadoop's FileSystem on xtreemfs:// (the adapter), the Java client directly on the same volume,
 * and Hadoop's raw local FileSystem on file:// (the local disk, hsync an fsync, no checksum files). Reported in MiB/s and as ratios adapter / client and
 * adapter / file://. The page cache is not dropped (the machine is shared): reads on every side may come from
 * memory, so read figures compare software paths.
 */
@Command(name = "xtreemfs-bench-hadoop", mixinStandardHelpOptions = true,
        description = "The Hadoop adapter against the Java client and file:// on the local disk: write and read N files.")
public final class HadoopIoBenchmark implements Callable<Integer> {
    private static final int MIB = 1024 * 1024;

    @Option(names = "--volume", required = true,
            description = "Volume URL host[:port]/volume of an existing volume (files go to /bench-hadoop and /bench-client).")
    private String volumeUrl;

    @Option(names = "--local-dir", required = true, description = "Folder on the local disk for the file:// baseline (removed afterwards).")
    private Path localDirectory;

    @Option(names = "--files", defaultValue = "4", description = "Files per phase (default ${DEFAULT-VALUE}).")
    private int files;

    @Option(names = "--size-mib", defaultValue = "64", description = "Size of each file in MiB (default ${DEFAULT-VALUE}).")
    private int sizeMib;

    @Option(names = "--block-kib", defaultValue = "1024", description = "Request size in KiB (default ${DEFAULT-VALUE}).")
    private int blockKib;

    @Option(names = "--rounds", defaultValue = "5",
            description = "Measured rounds, the three paths alternating in each; the median is reported (default ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--out", description = "Write the results as CSV to this file as well.")
    private Path csvOutput;

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new HadoopIoBenchmark()).execute(arguments));
    }

    /** One way to write and read a file. */
    private interface Target {
        void write(String name, byte[] block, long bytes) throws IOException;

        long read(String name, byte[] block) throws IOException;

        void clean() throws IOException;
    }

    @Override
    public Integer call() throws Exception {
        if (files < 1 || sizeMib < 1 || blockKib < 1 || rounds < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--files, --size-mib, --block-kib and"
                    + " --rounds must be positive, got " + files + ", " + sizeMib + ", " + blockKib + ", " + rounds);
        }
        VolumeUrl url = VolumeUrl.parse(volumeUrl);
        byte[] block = new byte[blockKib * 1024];
        new Random(42).nextBytes(block);
        long bytes = (long) sizeMib * MIB;
        Configuration conf = new Configuration();
        Files.createDirectories(localDirectory);
        List<String[]> rows = new ArrayList<>();
        try (Client client = Client.connect(url.dirAddress(), ClientOptions.defaults());
                FileSystem adapter = FileSystem.newInstance(URI.create("xtreemfs://" + url.host() + ":" + url.port()), conf);
                FileSystem local = FileSystem.newInstance(URI.create("file:///"), conf)) {
            Volume volume = client.openVolume(url.volumeName());
            Target viaAdapter = hadoopTarget(adapter, "/" + url.volumeName() + "/bench-hadoop");
            Target viaClient = clientTarget(volume, "/bench-client");
            // The raw local file system: its hsync is an fsync, while LocalFileSystem's checksumming stream only
            // flushes, which would leave its writes to the disk during the next path's turn.
            Target viaLocal = hadoopTarget(((LocalFileSystem) local).getRawFileSystem(),
                    localDirectory.toAbsolutePath() + "/bench-local");
            // One unmeasured file each first (JIT, connections), then rounds in which the paths alternate, so
            // neither warm-up nor a slow stretch of the shared machine favours one of them.
            int measuredFiles = files;
            files = 1;
            measure("warm-up adapter", viaAdapter, block, bytes);
            measure("warm-up client", viaClient, block, bytes);
            measure("warm-up file://", viaLocal, block, bytes);
            files = measuredFiles;
            List<double[]> adapterRounds = new ArrayList<>();
            List<double[]> clientRounds = new ArrayList<>();
            List<double[]> localRounds = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                adapterRounds.add(measure("adapter (xtreemfs://)", viaAdapter, block, bytes));
                clientRounds.add(measure("Java client", viaClient, block, bytes));
                localRounds.add(measure("local disk (file://)", viaLocal, block, bytes));
            }
            double[] adapterRates = median(adapterRounds);
            double[] clientRates = median(clientRounds);
            double[] localRates = median(localRounds);
            String[] phases = {"write", "read"};
            PrintStream out = System.out;
            out.printf(Locale.ROOT, "%d files of %d MiB, %d KiB requests, median of %d rounds%n", files, sizeMib,
                    blockKib, rounds);
            out.printf(Locale.ROOT, "%-6s %16s %16s %16s %18s %18s%n", "phase", "adapter MiB/s", "client MiB/s",
                    "file:// MiB/s", "adapter/client", "adapter/file://");
            for (int phase = 0; phase < 2; phase++) {
                String[] row = {phases[phase], format(adapterRates[phase]), format(clientRates[phase]),
                        format(localRates[phase]), format(adapterRates[phase] / clientRates[phase]),
                        format(adapterRates[phase] / localRates[phase])};
                rows.add(row);
                out.printf(Locale.ROOT, "%-6s %16s %16s %16s %18s %18s%n", (Object[]) row);
            }
        } finally {
            try (var paths = Files.walk(localDirectory)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        if (csvOutput != null) {
            StringBuilder csv = new StringBuilder("phase,adapter_mib_s,client_mib_s,local_mib_s,adapter_over_client,adapter_over_local\n");
            rows.forEach(row -> csv.append(String.join(",", row)).append('\n'));
            Files.writeString(csvOutput, csv, StandardCharsets.UTF_8);
        }
        return 0;
    }

    /** Per phase, the median of the rounds' rates. */
    private static double[] median(List<double[]> rounds) {
        double[] medians = new double[2];
        for (int phase = 0; phase < 2; phase++) {
            int index = phase;
            double[] sorted = rounds.stream().mapToDouble(rates -> rates[index]).sorted().toArray();
            medians[phase] = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        }
        return medians;
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** Write then read every file; returns {write MiB/s, read MiB/s}. */
    private double[] measure(String label, Target target, byte[] block, long bytes) throws IOException {
        target.clean();
        long start = System.nanoTime();
        for (int file = 0; file < files; file++) {
            target.write("f" + file, block, bytes);
        }
        double writeSeconds = (System.nanoTime() - start) / 1e9;
        start = System.nanoTime();
        for (int file = 0; file < files; file++) {
            long read = target.read("f" + file, block);
            if (read != bytes) {
                throw new IOException(label + ": read " + read + " bytes of file f" + file + ", wrote " + bytes);
            }
        }
        double readSeconds = (System.nanoTime() - start) / 1e9;
        target.clean();
        double mib = (double) files * bytes / MIB;
        System.err.printf(Locale.ROOT, "%s: write %.1f s, read %.1f s%n", label, writeSeconds, readSeconds);
        return new double[] {mib / writeSeconds, mib / readSeconds};
    }

    private static Target hadoopTarget(FileSystem fs, String folder) {
        org.apache.hadoop.fs.Path base = new org.apache.hadoop.fs.Path(fs.getUri().resolve(folder));
        return new Target() {
            @Override
            public void write(String name, byte[] block, long bytes) throws IOException {
                try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(base, name), true)) {
                    for (long written = 0; written < bytes; written += block.length) {
                        out.write(block, 0, (int) Math.min(block.length, bytes - written));
                    }
                    out.hsync();
                }
            }

            @Override
            public long read(String name, byte[] block) throws IOException {
                long total = 0;
                try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(base, name))) {
                    for (int read = in.read(block); read > 0; read = in.read(block)) {
                        total += read;
                    }
                }
                return total;
            }

            @Override
            public void clean() throws IOException {
                fs.delete(base, true);
                fs.mkdirs(base);
            }
        };
    }

    private static Target clientTarget(Volume volume, String folder) {
        return new Target() {
            @Override
            public void write(String name, byte[] block, long bytes) throws IOException {
                try (FileHandle file = volume.open(folder + "/" + name, OpenFlags.O_CREAT | OpenFlags.O_TRUNC
                        | OpenFlags.O_WRONLY, 0644)) {
                    for (long written = 0; written < bytes; written += block.length) {
                        file.write(written, block, 0, (int) Math.min(block.length, bytes - written));
                    }
                    file.fsync();
                }
            }

            @Override
            public long read(String name, byte[] block) throws IOException {
                long total = 0;
                try (FileHandle file = volume.open(folder + "/" + name, OpenFlags.O_RDONLY, 0)) {
                    for (int read = file.read(total, block, 0, block.length); read > 0;
                            read = file.read(total, block, 0, block.length)) {
                        total += read;
                    }
                }
                return total;
            }

            @Override
            public void clean() throws IOException {
                for (int file = 0; ; file++) {
                    try {
                        volume.unlink(folder + "/f" + file);
                    } catch (org.xtreemfs.client.XtreemFSException gone) {
                        break;
                    }
                }
                try {
                    volume.mkdir(folder, 0755);
                } catch (org.xtreemfs.client.XtreemFSException exists) {
                    // made by an earlier phase
                }
            }
        };
    }
}
