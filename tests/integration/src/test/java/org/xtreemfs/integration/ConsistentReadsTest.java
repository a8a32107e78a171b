package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * Consistent reads at every replica on real servers (a DIR, an MRC and three OSDs in this JVM, a chain of three,
 * pattern routing): two clients write 4 KiB slots of a file (each slot has one writer, versions 1, 2, ...), two
 * other clients read them at the same time, random slots (routed to the head) and scans in order (routed to the
 * middle), and {@link ConsistencyChecker} checks the whole history: no torn or foreign content, no version from
 * nowhere, none older than a write acknowledged or a read returned before the read began. The OSDs' status pages
 * show that head and middle served reads and that reads of files with unacknowledged updates were passed down.
 * {@link #load} takes the action to run mid-load, so the kill version (issue 12's recovery) adds only that.
 */
class ConsistentReadsTest {
    private static final int SLOT_BYTES = 4096;
    private static final int SLOTS_PER_FILE = 192;
    private static final List<String> FILES = List.of("/a");
    private static final int WRITERS = 4;
    private static final long LOAD_MS = 6_000;
    private TestCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void concurrentWritersAndReadersOnEveryReplicaSeeOnlyCommittedNeverOlderData() throws Exception {
        cluster = TestCluster.start(3);
        ConsistencyChecker checker = new ConsistencyChecker(SLOT_BYTES);
        List<String> chain = load(checker, () -> {});
        List<String> violations = checker.violations(20);
        assertThat(violations).as("consistency violations among %d reads and %d writes", checker.reads(),
                checker.writes()).isEmpty();
        assertThat(checker.writes()).isGreaterThan(200);
        assertThat(checker.reads()).isGreaterThan(500);
        long[] served = new long[3];
        long passedDown = 0;
        for (int replica = 0; replica < 3; replica++) {
            int osd = cluster.osdUuids().indexOf(chain.get(replica));
            passedDown += cluster.osdStatusNumber(osd, "replicationReadsPassedDown");
            served[replica] = cluster.osdStatusNumber(osd, "storageReadsServed");
        }
        assertThat(served[0] + served[1] + served[2]).as("every recorded read was served once, from some copy")
                .isEqualTo(checker.reads());
        assertThat(served[0]).as("reads the head served from its own copy").isGreaterThan(0);
        assertThat(served[1]).as("reads the middle served from its own copy").isGreaterThan(0);
        assertThat(passedDown).as("reads of a file with an unacknowledged update passed down the chain")
                .isGreaterThan(0);
    }

    /**
     * Fills the file, runs writers and readers for LOAD_MS with {@code midLoad} after a third of it, reads every slot
     * back; returns the file's chain, head first.
     */
    private List<String> load(ConsistencyChecker checker, Runnable midLoad) throws Exception {
        List<String> chain = new ArrayList<>();
        try (Client filler = cluster.client()) {
            filler.createVolume(Volume.newBuilder().setName("craq").setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                            .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                    .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3)
                            .setReadRouting(ReadRouting.READ_ROUTING_PATTERN)).build());
            for (String path : FILES) {
                try (FileHandle file = filler.openVolume("craq").open(path, OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                        0644)) {
                    for (int replica = 0; replica < 3; replica++) {
                        chain.add(file.replicaOsdUuids(replica).get(0));
                    }
                    for (int slot = 0; slot < SLOTS_PER_FILE; slot++) {
                        file.write((long) slot * SLOT_BYTES, checker.content(slotId(path, slot), 0));
                    }
                }
            }
        }
        List<Client> clients = List.of(cluster.client(), cluster.client(), cluster.client(), cluster.client());
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 4);
        AtomicBoolean stop = new AtomicBoolean();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int writer = 0; writer < WRITERS; writer++) {
                int writerIndex = writer;
                workers.add(pool.submit(() -> write(checker, clients.get(writerIndex / 2), writerIndex, stop)));
            }
            for (int reader = 0; reader < 4; reader++) {
                int readerIndex = reader;
                workers.add(pool.submit(() -> read(checker, clients.get(2 + readerIndex / 2), readerIndex, stop)));
            }
            Thread.sleep(LOAD_MS / 3);
            midLoad.run();
            Thread.sleep(LOAD_MS - LOAD_MS / 3);
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get();
            }
            // Read back every slot once more with a fresh client: the last acknowledged versions.
            try (Client last = cluster.client()) {
                for (String path : FILES) {
                    try (FileHandle file = last.openVolume("craq").open(path, OpenFlags.O_RDONLY, 0)) {
                        for (int slot = 0; slot < SLOTS_PER_FILE; slot++) {
                            long invoked = System.nanoTime();
                            byte[] bytes = file.read((long) slot * SLOT_BYTES, SLOT_BYTES);
                            checker.read("final", slotId(path, slot), bytes, invoked, System.nanoTime());
                        }
                    }
                }
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
            clients.forEach(Client::close);
        }
        return chain;
    }

    /** Writer {@code writerIndex} owns the slots s with s mod WRITERS == writerIndex, in both files. */
    private static Void write(ConsistencyChecker checker, Client client, int writerIndex, AtomicBoolean stop)
            throws Exception {
        Random random = new Random(100 + writerIndex);
        long[] versions = new long[FILES.size() * SLOTS_PER_FILE];
        List<FileHandle> files = new ArrayList<>();
        try {
            for (String path : FILES) {
                files.add(client.openVolume("craq").open(path, OpenFlags.O_RDWR, 0));
            }
            while (!stop.get()) {
                int fileIndex = random.nextInt(FILES.size());
                int slot = random.nextInt(SLOTS_PER_FILE / WRITERS) * WRITERS + writerIndex;
                int id = slotId(FILES.get(fileIndex), slot);
                long version = ++versions[id];
                long invoked = System.nanoTime();
                files.get(fileIndex).write((long) slot * SLOT_BYTES, checker.content(id, version));
                checker.wrote("writer" + writerIndex, id, version, invoked, System.nanoTime());
                // A pause now and then, so the file is also clean at times: reads then find both cases.
                if (random.nextInt(4) == 0) {
                    Thread.sleep(1 + random.nextInt(5));
                }
            }
        } finally {
            for (FileHandle file : files) {
                file.close();
            }
        }
        return null;
    }

    /** Even readers read random slots (routed to the head), odd ones scan slot after slot (to the middle). */
    private static Void read(ConsistencyChecker checker, Client client, int readerIndex, AtomicBoolean stop)
            throws Exception {
        Random random = new Random(200 + readerIndex);
        String name = "reader" + readerIndex;
        int scanned = 0;
        List<FileHandle> files = new ArrayList<>();
        try {
            for (String path : FILES) {
                files.add(client.openVolume("craq").open(path, OpenFlags.O_RDONLY, 0));
            }
            while (!stop.get()) {
                int fileIndex;
                int slot;
                if (readerIndex % 2 == 0) {
                    fileIndex = random.nextInt(FILES.size());
                    slot = random.nextInt(SLOTS_PER_FILE);
                } else {
                    fileIndex = (scanned / SLOTS_PER_FILE) % FILES.size();
                    slot = scanned % SLOTS_PER_FILE;
                    scanned++;
                }
                long invoked = System.nanoTime();
                byte[] bytes = files.get(fileIndex).read((long) slot * SLOT_BYTES, SLOT_BYTES);
                checker.read(name, slotId(FILES.get(fileIndex), slot), bytes, invoked, System.nanoTime());
            }
        } finally {
            for (FileHandle file : files) {
                file.close();
            }
        }
        return null;
    }

    private static int slotId(String path, int slot) {
        return FILES.indexOf(path) * SLOTS_PER_FILE + slot;
    }
}
