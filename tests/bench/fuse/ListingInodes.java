package org.xtreemfs.mrc.metadata;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * Not part of the benchmark (issue 10, session 16): the CPU per listed inode of {@link Namespace#loadStats} (which reads
 * a page of neighbouring inodes with one iterator over their span) against one multi-get of the same keys (what it did
 * before), on a RocksDB store with that many files' inodes in its memtable, asked in name order as a listing asks. Thread CPU
 * time, so the load of a shared machine moves it little. In the MRC package (package-private helpers), so compiled:
 *   CP="servers/mrc/target/classes:servers/mrc/target/lib/*"; javac -d /tmp/li -cp "$CP" tests/bench/fuse/ListingInodes.java
 *   java -XX:+UseSerialGC -cp "/tmp/li:$CP" org.xtreemfs.mrc.metadata.ListingInodes 10000
 */
public class ListingInodes {
    public static void main(String[] args) throws Exception {
        int files = Integer.parseInt(args[0]); // FILES
        RocksKvStore store = RocksKvStore.open(RocksKvOptions.defaults(Files.createTempDirectory("listing-micro")));
        Namespace namespace = new Namespace(store, Durability.BUFFERED, AtimePolicy.RELATIME);
        OperationContext context = OperationContext.of(Caller.root(), 1_000);
        Volume volume = Volume.newBuilder().setId("00000000-0000-0000-0000-000000000001").setName("vol").build();
        String id = volume.getId();
        Transaction t = namespace.begin();
        namespace.putVolume(t, volume);
        namespace.putRootDirectory(t, id, Stat.newBuilder().setInode(Namespace.ROOT_INODE)
                .setMode(FileModes.S_IFDIR | 0755).setNlink(2).build());
        t.commit();
        List<Long> inodes = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            t = namespace.begin();
            long inode = namespace.allocateInode(t, id);
            namespace.putInode(t, id, new InodeRecord(Namespace.newStat(context, inode, FileModes.S_IFREG | 0644, 1, 0,
                    volume).build(), null, null, Namespace.ROOT_INODE, 0));
            t.commit();
            inodes.add(inode);
        }
        // name order f0, f1, f10, f100 ... as a listing asks
        List<Long> asked = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < files; i++) names.add("f" + i);
        names.sort(null);
        for (String name : names) asked.add(inodes.get(Integer.parseInt(name.substring(1))));
        List<byte[]> keys = asked.stream().map(inode -> KvLayout.inode(id, inode)).toList();
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 6; round++) {
            long a0 = bean.getCurrentThreadCpuTime();
            long sum = 0;
            for (int k = 0; k < 20; k++) sum += namespace.loadStats(namespace.begin(), id, asked).size();
            long a1 = bean.getCurrentThreadCpuTime();
            for (int k = 0; k < 20; k++) {
                for (var v : store.multiGet(keys)) sum += InodeRecord.decodeStat(v.orElseThrow()).getNlink();
            }
            long a2 = bean.getCurrentThreadCpuTime();
            System.out.printf("round %d: loadStats (span iterator) %.2f us/inode, multiGet+decode %.2f us/inode (%d)%n",
                    round, (a1 - a0) / 1e3 / (20.0 * files), (a2 - a1) / 1e3 / (20.0 * files), sum);
        }
        store.close();
    }
}
