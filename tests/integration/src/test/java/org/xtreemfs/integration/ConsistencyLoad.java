package org.xtreemfs.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.XtreemFSException;

/**
 * The concurrent history that {@link ConsistencyChecker} checks, on one replicated file of SLOTS slots of
 * SLOT_BYTES: a filler writes version 0 of every slot, then two writer clients (WRITERS threads; each slot has one
 * writer, versions 1, 2, ...) and two reader clients (random slots, routed to the head; scans in order, routed to
 * the middle) run for {@code loadMs} with an action after a third of it (nothing, or a kill), and a fresh client
 * reads every slot back; every operation is recorded. Fixed seeds: the same seed gives the same choices.
 */
final class ConsistencyLoad {
    static final int SLOT_BYTES = 4096;
    static final int SLOTS = 192;
    static final int WRITERS = 4;
    static final int READERS = 4;

    /** What {@link #run} saw: the file's chain at the start (head first) and the final read of every slot. */
    record Outcome(List<String> chain, long[] finalVersions) {}

    private final TestCluster cluster;
    private final String volume;
    private final String path;
    private final long seed;
    private final ClientOptions.Builder options;

    /** @param volume an existing volume whose files are replicated three times with pattern routing */
    ConsistencyLoad(TestCluster cluster, String volume, String path, long seed, ClientOptions.Builder options) {
        this.cluster = cluster;
        this.volume = volume;
        this.path = path;
        this.seed = seed;
        this.options = options;
    }

    /** Creates and fills the file, runs the load with {@code midLoad} after a third of {@code loadMs}, reads back. */
    Outcome run(ConsistencyChecker checker, long loadMs, ThrowingRunnable midLoad) throws Exception {
        List<String> chain = new ArrayList<>();
        try (Client filler = cluster.client(options);
                FileHandle file = filler.openVolume(volume).open(path, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            for (int replica = 0; replica < 3; replica++) {
                chain.add(file.replicaOsdUuids(replica).get(0));
            }
            for (int slot = 0; slot < SLOTS; slot++) {
                file.write((long) slot * SLOT_BYTES, checker.content(slot, 0));
            }
        }
        List<Client> clients = List.of(cluster.client(options), cluster.client(options), cluster.client(options),
                cluster.client(options));
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
        AtomicBoolean stop = new AtomicBoolean();
        long[] finalVersions;
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int writer = 0; writer < WRITERS; writer++) {
                int writerIndex = writer;
                workers.add(pool.submit(() -> write(checker, clients.get(writerIndex / 2), writerIndex, stop)));
            }
            for (int reader = 0; reader < READERS; reader++) {
                int readerIndex = reader;
                workers.add(pool.submit(() -> read(checker, clients.get(2 + readerIndex / 2), readerIndex, stop)));
            }
            Thread.sleep(loadMs / 3);
            midLoad.run();
            Thread.sleep(loadMs - loadMs / 3);
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get();
            }
            // Read back every slot once more with a fresh client: the last acknowledged versions.
            finalVersions = readBack(cluster, options, volume, path, checker, SLOTS);
        } finally {
            stop.set(true);
            pool.shutdownNow();
            clients.forEach(Client::close);
        }
        return new Outcome(chain, finalVersions);
    }

    /** An action that may throw (a kill and the wait for the re-formed chain). */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Writer {@code writerIndex} of the load (its own client's handle, seeded), see {@link #writeUntilStopped}. */
    private Void write(ConsistencyChecker checker, Client client, int writerIndex, AtomicBoolean stop)
            throws Exception {
        try (FileHandle file = client.openVolume(volume).open(path, OpenFlags.O_RDWR, 0)) {
            writeUntilStopped(checker, file, "writer" + writerIndex, writerIndex, WRITERS, SLOTS,
                    new Random(seed * 1_000 + 100 + writerIndex), stop);
        }
        return null;
    }

    /** Even readers read random slots (routed to the head), odd ones scan slot after slot (to the middle). */
    private Void read(ConsistencyChecker checker, Client client, int readerIndex, AtomicBoolean stop)
            throws Exception {
        try (FileHandle file = client.openVolume(volume).open(path, OpenFlags.O_RDONLY, 0)) {
            readUntilStopped(checker, file, "reader" + readerIndex, readerIndex % 2 == 0, SLOTS,
                    new Random(seed * 1_000 + 200 + readerIndex), stop);
        }
        return null;
    }

    /**
     * Until {@code stop}: writes versions 1, 2, ... of random slots among those s of {@code slots} with s mod
     * {@code writers} == {@code writerIndex} (each slot has this one writer), recording each. A failed write is
     * recorded as such (its outcome is unknown) and ends the writer with the failure.
     */
    static void writeUntilStopped(ConsistencyChecker checker, FileHandle file, String name, int writerIndex,
            int writers, int slots, Random random, AtomicBoolean stop) throws Exception {
        long[] versions = new long[slots];
        while (!stop.get()) {
            int slot = random.nextInt(slots / writers) * writers + writerIndex;
            long version = ++versions[slot];
            long invoked = System.nanoTime();
            try {
                file.write((long) slot * SLOT_BYTES, checker.content(slot, version));
            } catch (XtreemFSException failure) {
                checker.writeFailed(name, slot, version, invoked);
                throw failure;
            }
            checker.wrote(name, slot, version, invoked, System.nanoTime());
            // A pause now and then, so the file is also clean at times: reads then find both cases.
            if (random.nextInt(4) == 0) {
                Thread.sleep(1 + random.nextInt(5));
            }
        }
    }

    /** Until {@code stop}: reads random slots ({@code randomSlots}) or scans them in order, recording each read. */
    static void readUntilStopped(ConsistencyChecker checker, FileHandle file, String name, boolean randomSlots,
            int slots, Random random, AtomicBoolean stop) throws Exception {
        int scanned = 0;
        while (!stop.get()) {
            int slot = randomSlots ? random.nextInt(slots) : scanned++ % slots;
            long invoked = System.nanoTime();
            byte[] bytes = file.read((long) slot * SLOT_BYTES, SLOT_BYTES);
            checker.read(name, slot, bytes, invoked, System.nanoTime());
        }
    }

    /** Reads every slot of {@code slots} once with a fresh client of {@code cluster} ("final"); their versions. */
    static long[] readBack(TestCluster cluster, ClientOptions.Builder options, String volume, String path,
            ConsistencyChecker checker, int slots) throws Exception {
        long[] finalVersions = new long[slots];
        try (Client last = cluster.client(options);
                FileHandle file = last.openVolume(volume).open(path, OpenFlags.O_RDONLY, 0)) {
            for (int slot = 0; slot < slots; slot++) {
                long invoked = System.nanoTime();
                byte[] bytes = file.read((long) slot * SLOT_BYTES, SLOT_BYTES);
                finalVersions[slot] = checker.read("final", slot, bytes, invoked, System.nanoTime());
            }
        }
        return finalVersions;
    }
}
