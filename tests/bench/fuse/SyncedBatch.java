import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * How long one MRC create's RocksDB batch takes on this disk at queue depth 1, synced and not (issue 10: is 5,000
 * creates per second possible with one durable sync per create?). Each batch is shaped like a create's (six keys:
 * the inode record, the name, the directory's record, the inode counter, the outcome record and its time index, with
 * values of the sizes the MRC writes), written one after the other by one thread as the MRC's metadata stage does;
 * {@code --group N} writes N creates' keys per synced batch (what group commit would do with N creates in flight).
 * Reports per batch the wall time (10th, 50th, 90th percentile, mean) and the process's CPU time, and the rate.
 *
 * <pre>
 *   java -cp ROCKSDBJNI_JAR tests/bench/fuse/SyncedBatch.java --dir FOLDER_ON_THE_DISK [--batches N] [--group N]
 * </pre>
 *
 * FOLDER_ON_THE_DISK should be on the file system the MRC's database lives on (a fresh folder; it is deleted
 * afterwards). Modes run in turn: buffered (the MRC's default, mrc.database.syncWrites=false), synced.
 */
public final class SyncedBatch {
    public static void main(String[] args) throws Exception {
        Path dir = null;
        int batches = 2000;
        int group = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--batches" -> batches = Integer.parseInt(args[++i]);
                case "--group" -> group = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dir == null) {
            throw new IllegalArgumentException("--dir FOLDER is required");
        }
        RocksDB.loadLibrary();
        Files.createDirectories(dir);
        try (Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(32L << 20);
                RocksDB db = RocksDB.open(options, dir.resolve("db").toString())) {
            long[] counter = {0};
            for (boolean sync : new boolean[] {false, true, false, true}) {
                try (WriteOptions write = new WriteOptions().setSync(sync)) {
                    run(db, write, sync ? "synced" : "buffered", batches, group, counter);
                }
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static void run(RocksDB db, WriteOptions write, String mode, int batches, int group, long[] counter)
            throws Exception {
        var threads = ManagementFactory.getThreadMXBean();
        long[] nanos = new long[batches];
        byte[] inodeValue = new byte[140];
        byte[] directoryValue = new byte[60];
        byte[] outcomeValue = new byte[330];
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        for (int b = 0; b < batches; b++) {
            long start = System.nanoTime();
            try (WriteBatch batch = new WriteBatch()) {
                for (int g = 0; g < group; g++) {
                    long n = ++counter[0];
                    Arrays.fill(inodeValue, (byte) n);
                    batch.put(key('I', n), inodeValue);
                    batch.put(key('D', n), ByteBuffer.allocate(8).putLong(n).array());
                    batch.put(key('I', 1), directoryValue);
                    batch.put(key('C', 0), ByteBuffer.allocate(8).putLong(n + 1).array());
                    batch.put(key('R', n), outcomeValue);
                    batch.put(key('r', n), new byte[0]);
                }
                db.write(write, batch);
            }
            nanos[b] = System.nanoTime() - start;
        }
        long wall = System.nanoTime() - wall0;
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        Arrays.sort(nanos);
        double mean = Arrays.stream(nanos).average().orElse(0) / 1e3;
        System.out.printf("%-8s group %d: %d batches, per batch p10 %.1f / p50 %.1f / p90 %.1f / mean %.1f us,"
                + " thread CPU %.1f us; %.0f creates/s%n", mode, group, batches, nanos[batches / 10] / 1e3,
                nanos[batches / 2] / 1e3, nanos[batches * 9 / 10] / 1e3, mean, cpu / 1e3 / batches,
                (double) batches * group / (wall / 1e9));
    }

    /** A key like the MRC's: kind byte, a 36-byte volume id, 0x00, 8 bytes of number. */
    private static byte[] key(char kind, long number) {
        ByteBuffer key = ByteBuffer.allocate(1 + 36 + 1 + 8);
        key.put((byte) kind);
        for (int i = 0; i < 36; i++) {
            key.put((byte) 'v');
        }
        key.put((byte) 0).putLong(number);
        return key.array();
    }
}
