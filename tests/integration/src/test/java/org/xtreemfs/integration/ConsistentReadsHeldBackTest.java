package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * Dirty reads made visible (issue 12, CRAQ's clean/dirty rule): in {@link ConsistentReadsTest}'s load an update
 * reaches the next member before a client can read another copy, so a head or middle serving uncommitted data
 * leaves a history that still passes (measured by a mutation). Here the middle of a chain of three OSD processes is
 * held back (SIGSTOP) for {@link #HOLD_MS} under load: writes invoked meanwhile are applied at the head but
 * acknowledged by nobody, so nothing commits until the middle resumes. Writers on {@link #SLOTS} 4 KiB slots (and,
 * only once the hold began, one write to each of {@link #HELD_SLOTS} more), a
 * reader bound to the head (random slots) and one bound to the tail (a scan; round-robin routing binds a client's
 * streams to head, middle, tail in order of first read) record every operation; the history, with the hold
 * recorded ({@link ConsistencyChecker#heldBack}), must show no read returning a version the tail had not committed,
 * nothing older than seen, and every slot's last acknowledged version at the end. The run also fails when it did
 * not test the hold: writes were invoked during it and acknowledged only after it, and the tail served reads during
 * it. The middle is resumed in a finally block; no server process is left.
 */
class ConsistentReadsHeldBackTest {
    /** Slots written throughout by WRITERS threads (each slot by one). */
    private static final int SLOTS = 8;
    private static final int WRITERS = 4;
    /**
     * Slots SLOTS, SLOTS + 1, ... written once each only after the middle was held back (version 1, one thread per
     * slot): the writers above are each blocked on a write invoked before the hold began, so these are the writes
     * that certainly enter the chain during the hold.
     */
    private static final int HELD_SLOTS = 4;
    private static final long BEFORE_MS = 1_500;
    private static final long HOLD_MS = 3_000;
    private static final long AFTER_MS = 1_500;
    private static final long SEED = 20261127L;
    private static final String VOLUME = "craq-held";
    private static final String PATH = "/held";

    @Test
    void readsAtHeadAndTailWhileTheMiddleIsHeldBackReturnOnlyCommittedVersions() throws Exception {
        long startNanos = System.nanoTime();
        TestCluster cluster = TestCluster.startProcesses(3);
        try {
            run(cluster, startNanos);
        } finally {
            cluster.closeLeavingNoProcess();
        }
    }

    private void run(TestCluster cluster, long startNanos) throws Exception {
        ConsistencyChecker checker = new ConsistencyChecker(ConsistencyLoad.SLOT_BYTES);
        List<String> chain;
        try (Client admin = cluster.client()) {
            admin.createVolume(Volume.newBuilder().setName(VOLUME).setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                            .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                    .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3)
                            .setReadRouting(ReadRouting.READ_ROUTING_ROUND_ROBIN)).build());
            try (FileHandle file = admin.openVolume(VOLUME).open(PATH, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                chain = ReplicaChain.of(file.credentials().getXlocs()).chainAt(0);
                for (int slot = 0; slot < SLOTS + HELD_SLOTS; slot++) {
                    file.write((long) slot * ConsistencyLoad.SLOT_BYTES, checker.content(slot, 0));
                }
            }
        }
        assertThat(chain).hasSize(3);
        String middle = "osd" + cluster.osdUuids().indexOf(chain.get(1));
        int headIndex = cluster.osdUuids().indexOf(chain.get(0));

        Client writerClient = cluster.client();
        Client headClient = cluster.client();
        Client tailClient = cluster.client();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2 + HELD_SLOTS);
        AtomicBoolean stop = new AtomicBoolean();
        long[] hold = new long[2];
        try {
            // Round-robin binds each client's streams in order of first read: the head client's only stream to the
            // head; the tail client's third to the tail (its first two, bound to head and middle, read once now).
            FileHandle headReader = headClient.openVolume(VOLUME).open(PATH, OpenFlags.O_RDONLY, 0);
            List<FileHandle> tailStreams = new ArrayList<>();
            for (int stream = 0; stream < 3; stream++) {
                FileHandle handle = tailClient.openVolume(VOLUME).open(PATH, OpenFlags.O_RDONLY, 0);
                handle.read(0, 1);
                tailStreams.add(handle);
            }
            FileHandle tailReader = tailStreams.get(2);
            List<Future<?>> workers = new ArrayList<>();
            for (int writer = 0; writer < WRITERS; writer++) {
                int writerIndex = writer;
                FileHandle file = writerClient.openVolume(VOLUME).open(PATH, OpenFlags.O_RDWR, 0);
                workers.add(pool.submit(() -> {
                    try (file) {
                        ConsistencyLoad.writeUntilStopped(checker, file, "writer" + writerIndex, writerIndex, WRITERS,
                                SLOTS, new Random(SEED * 1_000 + writerIndex), stop);
                    }
                    return null;
                }));
            }
            List<FileHandle> heldWriters = new ArrayList<>();
            for (int slot = SLOTS; slot < SLOTS + HELD_SLOTS; slot++) {
                heldWriters.add(writerClient.openVolume(VOLUME).open(PATH, OpenFlags.O_RDWR, 0));
            }
            workers.add(pool.submit(() -> {
                ConsistencyLoad.readUntilStopped(checker, headReader, "head-reader", true, SLOTS + HELD_SLOTS,
                        new Random(SEED * 1_000 + 100), stop);
                return null;
            }));
            workers.add(pool.submit(() -> {
                ConsistencyLoad.readUntilStopped(checker, tailReader, "tail-reader", false, SLOTS + HELD_SLOTS,
                        new Random(SEED * 1_000 + 200), stop);
                return null;
            }));

            Thread.sleep(BEFORE_MS);
            try {
                cluster.holdBack(middle);
                hold[0] = System.nanoTime();
                for (int index = 0; index < HELD_SLOTS; index++) {
                    FileHandle file = heldWriters.get(index);
                    int slot = SLOTS + index;
                    workers.add(pool.submit(() -> {
                        try (file) {
                            writeOnce(checker, file, "held-writer" + slot, slot, 1);
                        }
                        return null;
                    }));
                }
                Thread.sleep(HOLD_MS);
                hold[1] = System.nanoTime();
            } finally {
                cluster.resume(middle);
            }
            checker.heldBack(middle, hold[0], hold[1]);
            Thread.sleep(AFTER_MS);
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            headReader.close();
            for (FileHandle handle : tailStreams) {
                handle.close();
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
            writerClient.close();
            headClient.close();
            tailClient.close();
        }
        long[] finalVersions = ConsistencyLoad.readBack(cluster, ClientOptions.builder(), VOLUME, PATH, checker,
                SLOTS + HELD_SLOTS);

        List<ConsistencyChecker.Operation> operations = checker.operations();
        List<ConsistencyChecker.Operation> heldWrites = operations.stream().filter(operation -> operation.write()
                && operation.invokedNanos() >= hold[0] && operation.invokedNanos() < hold[1]).toList();
        long tailReadsHeld = operations.stream().filter(operation -> operation.client().equals("tail-reader")
                && operation.invokedNanos() >= hold[0] && operation.completedNanos() < hold[1]).count();
        long headReadsBefore = operations.stream().filter(operation -> operation.client().equals("head-reader")
                && operation.completedNanos() < hold[0]).count();
        long headReadsHeld = operations.stream().filter(operation -> operation.client().equals("head-reader")
                && operation.completedNanos() >= hold[0] && operation.completedNanos() < hold[1]).count();
        System.out.printf("ConsistentReadsHeldBackTest: %s held back %d ms; %d writes, %d reads; %d writes invoked"
                + " during the hold; head reads %d before it and %d returned during it; tail reads %d during it; took"
                + " %d ms, load %s%n", middle, (hold[1] - hold[0]) / 1_000_000, checker.writes(), checker.reads(),
                heldWrites.size(), headReadsBefore, headReadsHeld, tailReadsHeld,
                (System.nanoTime() - startNanos) / 1_000_000, ChainRuns.loadAverage());

        ConsistentReadsTest.assertConsistent(checker, new ConsistencyLoad.Outcome(chain, finalVersions));
        // The run tested the hold: writes entered the chain during it and none was acknowledged before it ended
        // (so nothing committed meanwhile), the tail served reads of committed data during it, and the head
        // reader was reading (a count, not a rate: under load each read takes long).
        assertThat(heldWrites).as("writes invoked while %s was held back", middle).hasSizeGreaterThanOrEqualTo(
                HELD_SLOTS).allSatisfy(write -> assertThat(write.completedNanos())
                        .as("acknowledged after %s resumed", middle).isGreaterThan(hold[1]));
        assertThat(tailReadsHeld).as("reads the tail served while %s was held back", middle).isPositive();
        assertThat(headReadsBefore).as("reads at the head before the hold").isPositive();
        assertThat(cluster.osdStatusNumber(headIndex, "replicationReadsPassedDown"))
                .as("reads of the dirty file passed down by the head").isPositive();
    }

    /** Writes {@code version} of {@code slot} once, recording it (as failed if the call fails). */
    private static void writeOnce(ConsistencyChecker checker, FileHandle file, String name, int slot, long version)
            throws Exception {
        long invoked = System.nanoTime();
        try {
            file.write((long) slot * ConsistencyLoad.SLOT_BYTES, checker.content(slot, version));
        } catch (org.xtreemfs.client.XtreemFSException failure) {
            checker.writeFailed(name, slot, version, invoked);
            throw failure;
        }
        checker.wrote(name, slot, version, invoked, System.nanoTime());
    }
}
