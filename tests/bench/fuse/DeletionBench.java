import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.interfaces.osd.ReadResponse;
import org.xtreemfs.osd.replication.XLocVersions;
import org.xtreemfs.osd.stages.DeletionScheduler;
import org.xtreemfs.osd.stages.StorageHealth;
import org.xtreemfs.osd.stages.StorageStage;
import org.xtreemfs.osd.storage.DeletionQueue;
import org.xtreemfs.osd.storage.LogStructuredStore;
import org.xtreemfs.osd.storage.RoleLayoutStorage;
import org.xtreemfs.osd.storage.StorageDevice;

/**
 * CPU of the OSD's deletion of never-written files on the calling thread (session 16, tests/bench/fuse/README.md): the
 * OSD's default layout (RoleLayoutStorage over RocksDB) in a fresh folder under DIR; batches of PER_POLL files are
 * recorded as OSD_DELETE_FILES does ({@code DeletionQueue.enqueueAll}, synced) and dispatched as one poll of the
 * deletion scheduler finds them ({@code DeletionScheduler.dispatchDue}); prints the thread's CPU per file for each
 * BLOCK files, so the JIT's warm-up shows. Optional BACKLOG (session 17): that many entries recorded first with a due
 * time a day ahead, i.e. the not-yet-due deletions an OSD with osd.deletion.delayMs = 60 s holds (a minute of unlinks)
 * while each poll takes the due ones. Uses only APIs main has too, so one source runs against two builds:
 *
 * <pre>
 *   CP="B/servers/osd/target/classes:$(ls B/servers/osd/target/lib/*.jar | tr '\n' :)"
 *   javac -d OUT -cp "$CP" DeletionBench.java && java -cp "OUT:$CP" DeletionBench TOTAL PER_POLL BLOCK DIR [BACKLOG]
 * </pre>
 */
public class DeletionBench {
    public static void main(String[] args) throws Exception {
        int total = Integer.parseInt(args[0]);
        int perPoll = Integer.parseInt(args[1]);
        int block = Integer.parseInt(args[2]);
        Path dir = Files.createTempDirectory(Path.of(args[3]), "dbench");
        int backlog = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        long[] aheadMillis = {0};
        Clock clock = new Clock() { // the system's, shifted ahead while the backlog is recorded
            @Override
            public long wallClockMillis() {
                return System.currentTimeMillis() + aheadMillis[0];
            }

            @Override
            public long monotonicNanos() {
                return System.nanoTime();
            }
        };
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (RoleLayoutStorage store = RoleLayoutStorage.open(dir, StorageDevice.NONE, LogStructuredStore.Options.defaults())) {
            DeletionQueue queue = new DeletionQueue(store.metadataStore(), null, clock, 0, 10_000_000);
            aheadMillis[0] = 86_400_000L;
            for (int from = 0; from < backlog; from += 1_000) {
                List<String> later = new ArrayList<>();
                for (int i = from; i < Math.min(backlog, from + 1_000); i++) {
                    later.add("later:" + i);
                }
                queue.enqueueAll(later);
            }
            aheadMillis[0] = 0;
            StorageStage stage = new StorageStage(store, queue, 2, (1024 + 64) * 2, true, SystemClock.INSTANCE, r -> { },
                    null, ReadResponse::getDefaultInstance, new XLocVersions(store.metadataStore()),
                    new StorageHealth("osd", 5, System::nanoTime));
            DeletionScheduler scheduler = new DeletionScheduler(queue, stage, 100);
            long cpu = 0, recordCpu = 0;
            int done = 0, inBlock = 0;
            StringBuilder out = new StringBuilder();
            for (int next = 0; next < total; ) {
                List<String> batch = new ArrayList<>(perPoll);
                for (int i = 0; i < perPoll && next < total; i++) {
                    batch.add("vol:" + (next++));
                }
                long t0 = mx.getCurrentThreadCpuTime();
                queue.enqueueAll(batch);
                long t1 = mx.getCurrentThreadCpuTime();
                int n = scheduler.dispatchDue();
                long t2 = mx.getCurrentThreadCpuTime();
                if (n != batch.size()) throw new IllegalStateException("dispatched " + n + " of " + batch.size());
                recordCpu += t1 - t0;
                cpu += t2 - t1;
                inBlock += n;
                done += n;
                if (inBlock >= block) {
                    out.append(String.format("deletions %d-%d: dispatch %.1f us/file, record %.1f us/file%n",
                            done - inBlock, done, cpu / 1000.0 / inBlock, recordCpu / 1000.0 / inBlock));
                    cpu = 0; recordCpu = 0; inBlock = 0;
                }
            }
            if (queue.pendingCount() != backlog) throw new IllegalStateException("pending " + queue.pendingCount());
            System.out.print(out);
            stage.close();
        }
    }
}
