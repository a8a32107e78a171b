package org.xtreemfs.bench.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.osd.storage.LogStructuredStore;
import org.xtreemfs.osd.storage.ObjectStorage;
import org.xtreemfs.osd.storage.StorageDevice;
import org.xtreemfs.osd.storage.StorageLayout;
import org.xtreemfs.osd.storage.StripeLayout;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The OSD's two object layouts under random 4 KiB durable writes (each write synced before it is acknowledged, as
 * a FAST tail writes): the conventional layout (a file per object, the write forced in place) against the
 * log-structured layout (appended, one fdatasync of the log), on the same disk in the same run, through the storage
 * interface the storage stage uses. Both first get the same data set written and synced (not measured), then the
 * layouts take turns for {@code --rounds} rounds of {@code --seconds} each, so machine drift hits both alike.
 * Reports writes per second per layout and the ratio log / conventional, per round and as the median.
 */
@Command(name = "xtreemfs-bench-layout", mixinStandardHelpOptions = true,
        description = "Random 4 KiB synced writes: log-structured against conventional object layout, same disk,"
                + " same run; prints IOPS and the ratio.")
public final class LayoutBenchmark implements Callable<Integer> {
    private static final int OBJECT_BYTES = 128 * 1024;
    private static final int BLOCK_BYTES = 4096;

    @Option(names = "--folder", description = "folder on the disk to measure (default: a temporary folder in"
            + " /var/tmp); removed afterwards")
    Path folder;

    @Option(names = "--files", defaultValue = "32", description = "files in the data set (default: ${DEFAULT-VALUE})")
    int files;

    @Option(names = "--objects-per-file", defaultValue = "16",
            description = "128 KiB objects per file (default: ${DEFAULT-VALUE}; 32 x 16 = 64 MiB)")
    int objectsPerFile;

    @Option(names = "--threads", defaultValue = "1,8", split = ",",
            description = "writer threads, one run per value (default: ${DEFAULT-VALUE})")
    List<Integer> threads;

    @Option(names = "--seconds", defaultValue = "5", description = "seconds per layout and round (default: ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds, layouts alternating (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--emulation", defaultValue = "none", description = "none (the real disk) or an emulated device"
            + " both layouts share (hdd7200, ssd; osd.device.emulation's models) (default: ${DEFAULT-VALUE})")
    DeviceEmulation emulation;

    @Option(names = "--seed", defaultValue = "1", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LayoutBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (files < 1 || objectsPerFile < 1 || seconds <= 0 || rounds < 1 || threads.stream().anyMatch(t -> t < 1)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--files, --objects-per-file, --seconds,"
                    + " --rounds and --threads must be positive, were " + files + ", " + objectsPerFile + ", "
                    + seconds + ", " + rounds + ", " + threads);
        }
        Path base = folder != null ? folder : Files.createTempDirectory(Path.of("/var/tmp"), "xtreemfs-layout-bench");
        Files.createDirectories(base);
        System.out.printf(Locale.ROOT, "layout benchmark: %d files x %d objects of 128 KiB (%d MiB), random 4 KiB"
                + " synced writes, %s, device %s, %.1f s per layout and round, %d rounds%n", files, objectsPerFile,
                (long) files * objectsPerFile * OBJECT_BYTES >> 20, base, emulation.configName(), seconds, rounds);
        // One device for both: the same (emulated) disk, used by one layout at a time.
        StorageDevice device = emulation.device(SystemClock.INSTANCE);
        try (ObjectStorage conventional = StorageLayout.CONVENTIONAL.open(base.resolve("conventional"), device,
                LogStructuredStore.Options.defaults());
                ObjectStorage log = StorageLayout.LOG.open(base.resolve("log"), device,
                        LogStructuredStore.Options.defaults())) {
            fill(conventional);
            fill(log);
            System.out.println("threads,round,conventional_iops,log_iops,ratio");
            for (int threadCount : threads) {
                List<Double> ratios = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    double conventionalIops;
                    double logIops;
                    if (round % 2 == 0) {
                        conventionalIops = measure(conventional, threadCount, round);
                        logIops = measure(log, threadCount, round);
                    } else {
                        logIops = measure(log, threadCount, round);
                        conventionalIops = measure(conventional, threadCount, round);
                    }
                    ratios.add(logIops / conventionalIops);
                    System.out.printf(Locale.ROOT, "%d,%d,%.0f,%.0f,%.2f%n", threadCount, round, conventionalIops,
                            logIops, logIops / conventionalIops);
                }
                ratios.sort(null);
                System.out.printf(Locale.ROOT, "threads %d: log / conventional median %.2fx (lowest %.2f, highest"
                        + " %.2f)%n", threadCount, ratios.get(ratios.size() / 2), ratios.get(0),
                        ratios.get(ratios.size() - 1));
            }
        } finally {
            if (folder == null) {
                deleteRecursively(base);
            }
        }
        return 0;
    }

    /** Writes every object once, unsynced, then makes each file durable. */
    private void fill(ObjectStorage storage) throws IOException {
        StripeLayout layout = StripeLayout.single(OBJECT_BYTES);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] data = new byte[OBJECT_BYTES];
        for (int file = 0; file < files; file++) {
            for (int object = 0; object < objectsPerFile; object++) {
                random.nextBytes(data);
                storage.write(fileId(file), layout, object, 0, ByteBuffer.wrap(data), 0, false);
            }
            storage.fsync(fileId(file));
        }
    }

    /** Synced random 4 KiB writes from {@code threadCount} threads, each on its own files; returns writes/s. */
    private double measure(ObjectStorage storage, int threadCount, int round) throws Exception {
        StripeLayout layout = StripeLayout.single(OBJECT_BYTES);
        long endNanos = System.nanoTime() + (long) (seconds * 1e9);
        AtomicLong writes = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threadCount);
        try {
            List<Future<Void>> done = new ArrayList<>();
            long startNanos = System.nanoTime();
            for (int thread = 0; thread < threadCount; thread++) {
                int id = thread;
                done.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed * 7919 + round * 131 + id);
                    byte[] block = new byte[BLOCK_BYTES];
                    while (System.nanoTime() < endNanos) {
                        // Thread t writes files t, t + threads, ...: one file is never written by two threads (the
                        // storage stage's ordering per file).
                        int file = id + threadCount * random.nextInt(Math.max(1, (files - id + threadCount - 1)
                                / threadCount));
                        random.nextBytes(block);
                        storage.write(fileId(file), layout, random.nextInt(objectsPerFile),
                                random.nextInt(OBJECT_BYTES / BLOCK_BYTES) * BLOCK_BYTES, ByteBuffer.wrap(block), 0,
                                true);
                        writes.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<Void> future : done) {
                future.get();
            }
            return writes.get() / ((System.nanoTime() - startNanos) / 1e9);
        } finally {
            pool.shutdown();
        }
    }

    private static String fileId(int file) {
        return "layout-bench:" + file;
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            try (var entries = Files.list(path)) {
                for (Path entry : entries.toList()) {
                    deleteRecursively(entry);
                }
            }
        }
        Files.deleteIfExists(path);
    }
}
