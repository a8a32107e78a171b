package org.xtreemfs.bench.core;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
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
 * Sequential write and read of one large file and create/stat/unlink of many small files, once through
 * the Java client on a running cluster and once on the raw local disk, reported as ratios (file system
 * divided by raw disk). Both sides run in the same invocation so machine noise affects both.
 */
@Command(name = "xtreemfs-bench-core", mixinStandardHelpOptions = true,
        description = "Java client versus raw local disk: sequential I/O and metadata operations.")
public final class CoreBenchmark implements Callable<Integer> {
    private static final int MIB = 1024 * 1024;

    @Option(names = "--volume", required = true,
            description = "Volume URL [pbrpc[s]://]host[:port]/volume of an existing, empty-enough volume.")
    private String volumeUrl;

    @Option(names = "--raw-dir", required = true,
            description = "Folder on the local disk for the raw-disk baseline (removed afterwards).")
    private Path rawDirectory;

    @Option(names = "--size-mib", defaultValue = "1024", description = "Size of the sequential file in MiB (default ${DEFAULT-VALUE}).")
    private int sizeMib;

    @Option(names = "--block-kib", defaultValue = "1024", description = "Request size in KiB (default ${DEFAULT-VALUE}).")
    private int blockKib;

    @Option(names = "--files", defaultValue = "10000", description = "Files to create, stat and unlink (default ${DEFAULT-VALUE}).")
    private int files;

    @Option(names = "--out", description = "Write the results as CSV to this file as well.")
    private Path csvOutput;

    private final List<String[]> results = new ArrayList<>();

    public static void main(String[] arguments) {
        System.exit(new CommandLine(new CoreBenchmark()).execute(arguments));
    }

    @Override
    public Integer call() throws Exception {
        if (sizeMib <= 0 || blockKib <= 0 || files <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--size-mib, --block-kib and --files must be positive (got " + sizeMib + ", " + blockKib + ", " + files + ")");
        }
        VolumeUrl url = VolumeUrl.parse(volumeUrl);
        Files.createDirectories(rawDirectory);
        byte[] block = new byte[blockKib * 1024];
        new Random(7).nextBytes(block);
        long totalBytes = (long) sizeMib * MIB;
        try (Client client = Client.connect(new InetSocketAddress(url.host(), url.port()), ClientOptions.defaults());
             Volume volume = client.openVolume(url.volumeName())) {
            progress("sequential write, %d MiB in %d KiB requests", sizeMib, blockKib);
            double rawWrite = rawSequentialWrite(block, totalBytes);
            double fsWrite = volumeSequentialWrite(volume, "/bench-sequential", block, totalBytes);
            record("sequential write", "MiB/s", fsWrite, rawWrite);
            dropPageCache();
            progress("sequential read");
            double rawRead = rawSequentialRead(block.length);
            double fsRead = volumeSequentialRead(volume, block.length, totalBytes);
            record("sequential read", "MiB/s", fsRead, rawRead);
            volume.unlink("/bench-sequential");
            Files.deleteIfExists(rawDirectory.resolve("bench-sequential"));
            progress("metadata: create, stat, unlink of %d files", files);
            double[] raw = rawMetadata();
            double[] fs = volumeMetadata(volume);
            record("create", "ops/s", fs[0], raw[0]);
            record("stat", "ops/s", fs[1], raw[1]);
            record("unlink", "ops/s", fs[2], raw[2]);
        }
        print(System.out);
        if (csvOutput != null) {
            Files.createDirectories(csvOutput.toAbsolutePath().getParent());
            StringBuilder csv = new StringBuilder("operation,unit,xtreemfs,raw_disk,ratio\n");
            for (String[] row : results) {
                csv.append(String.join(",", row)).append('\n');
            }
            Files.writeString(csvOutput, csv.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    private double rawSequentialWrite(byte[] block, long totalBytes) throws IOException {
        Path file = rawDirectory.resolve("bench-sequential");
        long start = System.nanoTime();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long written = 0; written < totalBytes; written += block.length) {
                ByteBuffer buffer = ByteBuffer.wrap(block);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
            channel.force(true);
        }
        return mibPerSecond(totalBytes, System.nanoTime() - start);
    }

    /** Writes {@code path} in order, {@code block} after block, and fsyncs it; MiB/s including the fsync. */
    static double volumeSequentialWrite(Volume volume, String path, byte[] block, long totalBytes)
            throws IOException {
        long start = System.nanoTime();
        try (FileHandle file = volume.open(path,
                OpenFlags.O_CREAT | OpenFlags.O_TRUNC | OpenFlags.O_WRONLY, 0644)) {
            for (long offset = 0; offset < totalBytes; offset += block.length) {
                file.write(offset, block, 0, block.length);
            }
            file.fsync();
        }
        return mibPerSecond(totalBytes, System.nanoTime() - start);
    }

    private double rawSequentialRead(int blockBytes) throws IOException {
        Path file = rawDirectory.resolve("bench-sequential");
        ByteBuffer buffer = ByteBuffer.allocate(blockBytes);
        long total = 0;
        long start = System.nanoTime();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int read;
            while ((read = channel.read(buffer.clear())) > 0) {
                total += read;
            }
        }
        return mibPerSecond(total, System.nanoTime() - start);
    }

    private double volumeSequentialRead(Volume volume, int blockBytes, long totalBytes) throws IOException {
        byte[] buffer = new byte[blockBytes];
        long total = 0;
        long start = System.nanoTime();
        try (FileHandle file = volume.open("/bench-sequential", OpenFlags.O_RDONLY, 0)) {
            int read;
            while (total < totalBytes && (read = file.read(total, buffer, 0, buffer.length)) > 0) {
                total += read;
            }
        }
        if (total != totalBytes) {
            throw new IOException("read back " + total + " bytes of " + totalBytes);
        }
        return mibPerSecond(total, System.nanoTime() - start);
    }

    private double[] rawMetadata() throws IOException {
        Path folder = Files.createDirectories(rawDirectory.resolve("bench-metadata"));
        double[] opsPerSecond = new double[3];
        long start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            Files.newOutputStream(folder.resolve("f" + i)).close();
        }
        opsPerSecond[0] = opsPerSecond(files, System.nanoTime() - start);
        start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            Files.readAttributes(folder.resolve("f" + i), "unix:mode");
        }
        opsPerSecond[1] = opsPerSecond(files, System.nanoTime() - start);
        start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            Files.delete(folder.resolve("f" + i));
        }
        opsPerSecond[2] = opsPerSecond(files, System.nanoTime() - start);
        Files.delete(folder);
        return opsPerSecond;
    }

    private double[] volumeMetadata(Volume volume) throws IOException {
        volume.mkdir("/bench-metadata", 0755);
        double[] opsPerSecond = new double[3];
        long start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            volume.open("/bench-metadata/f" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644).close();
        }
        opsPerSecond[0] = opsPerSecond(files, System.nanoTime() - start);
        volume.invalidateCache();
        start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            volume.getattr("/bench-metadata/f" + i);
        }
        opsPerSecond[1] = opsPerSecond(files, System.nanoTime() - start);
        start = System.nanoTime();
        for (int i = 0; i < files; i++) {
            volume.unlink("/bench-metadata/f" + i);
        }
        opsPerSecond[2] = opsPerSecond(files, System.nanoTime() - start);
        volume.rmdir("/bench-metadata");
        return opsPerSecond;
    }

    /** Drops the page cache (as root) so reads reach the disk on both sides; says so when it cannot. */
    private static void dropPageCache() {
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        } catch (IOException | SecurityException e) {
            progress("cannot drop the page cache (%s): reads may be served from memory on both sides", e.getMessage());
        }
    }

    private void record(String operation, String unit, double fileSystem, double rawDisk) {
        results.add(new String[] {operation, unit, format(fileSystem), format(rawDisk), format(fileSystem / rawDisk)});
    }

    private void print(PrintStream out) {
        out.printf("%-18s %-6s %12s %12s %8s%n", "operation", "unit", "xtreemfs", "raw disk", "ratio");
        for (String[] row : results) {
            out.printf("%-18s %-6s %12s %12s %8s%n", (Object[]) row);
        }
    }

    private static void progress(String format, Object... arguments) {
        System.err.printf("[bench] " + format + "%n", arguments);
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static double mibPerSecond(long bytes, long nanos) {
        return bytes / (double) MIB / (nanos / 1e9);
    }

    private static double opsPerSecond(int operations, long nanos) {
        return operations / (nanos / 1e9);
    }
}
