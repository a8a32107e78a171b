package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.FileReplicas;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaChangeResponse;
import org.xtreemfs.interfaces.osd.FillReplicaResponse;

/**
 * Re-replication on real servers (a DIR, an MRC and five OSDs in this JVM): a replica added to a file's chain is
 * filled from a live replica in the background at a bounded rate while the file is written through the new chain,
 * a writer still holding the old chain is refused rather than bypassing the new member (it follows the chain and
 * writes through the new one), and afterwards every
 * replica holds the same bytes as what was written; xtfsutil --set-replication raises and lowers a file's replicas and
 * sets a volume's policy.
 */
class ReplicaFillTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;
    private static final int OSDS = 5;
    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(OSDS, Map.of("osd.deletion.delayMs", "0"), Map.of());
        client = cluster.client();
        client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("fill").setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT).setWidth(1))
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(2)).build());
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    // 64 objects (8 MiB) on a two-OSD chain; a third replica joins before the tail and is filled at 4 MiB/s (about
    // 2 s) while a writer overwrites pieces through the new chain, into objects not copied yet and past the old end.
    // The old chain's handle is refused (XLOC_OUTDATED) once the fill has begun and follows to the new chain. Afterwards all three replicas hold exactly what was
    // written, and the fill kept its rate: bytes copied over its duration at most the bound.
    @Test
    void aNewReplicaIsFilledAtItsRateWhileTheFileIsWritten() throws Exception {
        Volume volume = client.openVolume("fill");
        Random random = new Random(20261127);
        byte[] expected = new byte[64 * OBJECT];
        random.nextBytes(expected);
        FileHandle old = volume.open("/filled", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        old.write(0, expected);
        old.fsync();
        List<String> before = Replicas.chainOf(old.credentials().getXlocs(), 0);

        FileReplicas replicas = new FileReplicas(volume);
        ReplicaChangeResponse added = replicas.addReplica("/filled");
        XLocSet grown = added.getCredentials().getXlocs();
        assertThat(grown.getVersion()).isEqualTo(2);
        List<String> chain = Replicas.chainOf(grown, 0);
        assertThat(chain).hasSize(3);
        assertThat(chain.get(0)).isEqualTo(before.get(0));
        assertThat(chain.get(2)).as("the tail stays the tail").isEqualTo(before.get(1));
        assertThat(new HashSet<>(chain)).hasSize(3);
        Replica joined = FileReplicas.fillingReplicaOf(grown);
        assertThat(joined.getOsdUuidsList()).containsExactly(chain.get(1));

        long rate = 4L << 20;
        long startNanos = System.nanoTime();
        CompletableFuture<FillReplicaResponse[]> fill = CompletableFuture.supplyAsync(() -> {
            try {
                return replicas.fill("/filled", added.getCredentials(), joined, rate, 120_000);
            } catch (XtreemFSException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        AtomicInteger writesDuringFill = new AtomicInteger();
        int end = expected.length;
        byte[] grownExpected = java.util.Arrays.copyOf(expected, 70 * OBJECT);
        try (FileHandle writer = volume.open("/filled", OpenFlags.O_RDWR, 0644)) {
            assertThat(writer.credentials().getXlocs().getVersion()).isEqualTo(2);
            for (int piece = 0; piece < 40 && (piece < 8 || !fill.isDone()); piece++) {
                int offset = piece % 5 == 4 ? 64 * OBJECT + random.nextInt(5 * OBJECT)
                        : random.nextInt(64 * OBJECT - 70_000);
                byte[] data = new byte[1 + random.nextInt(60_000)];
                random.nextBytes(data);
                System.arraycopy(data, 0, grownExpected, offset, data.length);
                end = Math.max(end, offset + data.length);
                writer.write(offset, data);
                if (!fill.isDone()) {
                    writesDuringFill.incrementAndGet();
                }
            }
            writer.fsync();
        }
        FillReplicaResponse[] done = fill.get();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        assertThat(writesDuringFill.get()).as("writes while the fill ran").isGreaterThanOrEqualTo(8);
        // Objects a write reached first were copied by that write (on its lane), not again by the fill.
        long copied = done[0].getBytesCopied();
        assertThat(copied).isPositive().isLessThanOrEqualTo(70L * OBJECT);
        double measured = copied / (done[0].getDurationMs() / 1000.0);
        System.out.printf("fill: %d bytes in %d ms at the OSD (%.2f MiB/s, bound %.2f MiB/s), %.2f s end to end,"
                + " %d writes during the fill%n", copied, done[0].getDurationMs(), measured / (1 << 20),
                rate / (double) (1 << 20), seconds, writesDuringFill.get());
        // The bound: the fill answers only once rate x elapsed covers what it copied (1 ms of rounding).
        assertThat(copied).isLessThanOrEqualTo((long) (rate * (done[0].getDurationMs() + 1) / 1000.0));
        assertThat(copied).isLessThanOrEqualTo((long) (rate * seconds));

        // The old chain's handle: its head has seen the new chain and refuses version 1 (XLOC_OUTDATED, the OSD's
        // XLocVersions), so the write is not sent past the new member; the client takes the current XLoc from the MRC
        // and writes through the new chain, which reaches the new member too.
        old.write(0, new byte[] {1, 2, 3});
        assertThat(old.credentials().getXlocs().getVersion()).as("the old handle follows the chain").isEqualTo(2);
        grownExpected[0] = 1;
        grownExpected[1] = 2;
        grownExpected[2] = 3;

        ReplicaChangeResponse filled = replicas.filled("/filled", joined);
        assertThat(filled.getCredentials().getXlocs().getVersion()).isEqualTo(3);
        assertThat(filled.getCredentials().getXlocs().getReplicasList()).noneMatch(Replica::getFilling);
        FileCredentials current = filled.getCredentials();
        int objects = grownExpected.length / OBJECT;
        for (String member : chain) {
            Map<Long, byte[]> stored = Replicas.objectsReadAt(client, current, member, objects + 2);
            byte[] rebuilt = new byte[grownExpected.length];
            stored.forEach((number, bytes) -> System.arraycopy(bytes, 0, rebuilt, (int) (number * OBJECT),
                    bytes.length));
            assertThat(stored.keySet()).as("objects on %s", member).hasSizeLessThanOrEqualTo(objects);
            Bytes.assertSameBytes(rebuilt, grownExpected);
        }
        try (Client fresh = cluster.client();
                FileHandle reader = fresh.openVolume("fill").open("/filled", OpenFlags.O_RDONLY, 0)) {
            Bytes.assertSameBytes(reader.read(0, grownExpected.length), java.util.Arrays.copyOf(grownExpected, end));
        }
        // The members have seen version 3 (the reads above): the old handle, still on version 2, is refused
        // XLOC_OUTDATED by the one version check (XLocVersions) and follows to version 3.
        old.write(3, new byte[] {4});
        assertThat(old.credentials().getXlocs().getVersion()).isEqualTo(3);
        old.close();
    }

    // A file with one replica gets a second as its new head (the old replica stays the tail, serving reads): the
    // head fills from its successor, and a write reaching an object not yet copied first copies it there, so the
    // write lands on the whole object and is not overwritten by the fill.
    @Test
    void aSingleReplicaFileGetsAFilledNewHead() throws Exception {
        client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("single").setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT).setWidth(1)).build());
        Volume volume = client.openVolume("single");
        byte[] expected = new byte[16 * OBJECT];
        new Random(11).nextBytes(expected);
        String sole;
        try (FileHandle file = volume.open("/one", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, expected);
            sole = file.stripeOsdUuids().get(0);
        }
        FileHandle old = volume.open("/one", OpenFlags.O_RDWR, 0644); // holds XLoc version 1: one replica
        FileReplicas replicas = new FileReplicas(volume);
        ReplicaChangeResponse added = replicas.addReplica("/one");
        List<String> chain = Replicas.chainOf(added.getCredentials().getXlocs(), 0);
        assertThat(chain.get(1)).isEqualTo(sole);
        try (FileHandle writer = volume.open("/one", OpenFlags.O_RDWR, 0644)) {
            assertThat(writer.stripeOsdUuids()).containsExactly(chain.get(0));
            for (int object = 3; object < 16; object += 4) {
                byte[] data = new byte[1000 + object];
                new Random(object).nextBytes(data);
                System.arraycopy(data, 0, expected, object * OBJECT + 500, data.length);
                writer.write(object * OBJECT + 500L, data);
            }
        }
        // The handle opened with one replica: the old replica, now the tail, has seen version 2 (the writes above)
        // and refuses version 1 with XLOC_OUTDATED, which the handle follows to the new head like a replicated one.
        byte[] late = new byte[777];
        new Random(99).nextBytes(late);
        old.write(2L * OBJECT + 100, late);
        System.arraycopy(late, 0, expected, 2 * OBJECT + 100, late.length);
        assertThat(old.credentials().getXlocs().getVersion()).as("the one-replica handle follows").isEqualTo(2);
        old.close();
        replicas.fill("/one", added.getCredentials(), FileReplicas.fillingReplicaOf(added.getCredentials()
                .getXlocs()), 0, 60_000);
        FileCredentials current = replicas.filled("/one", FileReplicas.fillingReplicaOf(added.getCredentials()
                .getXlocs())).getCredentials();
        for (String member : chain) {
            Map<Long, byte[]> stored = Replicas.objectsReadAt(client, current, member, 17);
            byte[] rebuilt = new byte[expected.length];
            stored.forEach((number, bytes) -> System.arraycopy(bytes, 0, rebuilt, (int) (number * OBJECT),
                    bytes.length));
            assertThat(stored).as("objects on %s", member).hasSize(16);
            Bytes.assertSameBytes(rebuilt, expected);
        }
    }

    // xtfsutil --set-replication on a file: 2 -> 3 (a filled replica, the same bytes everywhere), 3 -> 1 (the removed
    // OSDs delete their copy; the file still reads back); on the volume: new files get the new count; a count out of
    // the bound is refused naming it.
    @Test
    void setReplicationRaisesAndLowersAFilesReplicasAndSetsTheVolumesPolicy() throws Exception {
        Volume volume = client.openVolume("fill");
        byte[] data = new byte[10 * OBJECT + 123];
        new Random(5).nextBytes(data);
        try (FileHandle file = volume.open("/tool", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, data);
        }
        ToolRun raised = ToolRun.of(new XtfsutilMain(), "--set-replication", "3", "--fill-rate", "8MiB/s",
                url("fill/tool"));
        assertThat(raised.exitCode()).as(raised.err()).isZero();
        assertThat(raised.out()).contains("2 -> 3 replica(s)").contains("filled:");
        XLocSet three = volume.fileLayout("/tool").getXlocs();
        assertThat(three.getReplicasCount()).isEqualTo(3);
        assertThat(three.getReplicasList()).noneMatch(Replica::getFilling);
        FileCredentials credentials;
        try (FileHandle file = volume.open("/tool", OpenFlags.O_RDONLY, 0)) {
            credentials = file.credentials();
            Bytes.assertSameBytes(file.read(0, data.length), data);
        }
        for (String member : Replicas.chainOf(three, 0)) {
            Map<Long, byte[]> stored = Replicas.objectsReadAt(client, credentials, member, 12);
            assertThat(stored).as("objects on %s", member).hasSize(11);
            byte[] rebuilt = new byte[data.length];
            stored.forEach((number, bytes) -> System.arraycopy(bytes, 0, rebuilt, (int) (number * OBJECT),
                    bytes.length));
            Bytes.assertSameBytes(rebuilt, data);
        }

        ToolRun lowered = ToolRun.of(new XtfsutilMain(), "--set-replication", "1", url("fill/tool"));
        assertThat(lowered.exitCode()).as(lowered.err()).isZero();
        assertThat(lowered.out()).contains("3 -> 1 replica(s)");
        XLocSet one = volume.fileLayout("/tool").getXlocs();
        assertThat(one.getReplicasCount()).isEqualTo(1);
        assertThat(one.getReplicas(0).getOsdUuids(0)).as("the head stays").isEqualTo(three.getReplicas(0).getOsdUuids(0));
        try (Client fresh = cluster.client();
                FileHandle file = fresh.openVolume("fill").open("/tool", OpenFlags.O_RDWR, 0)) {
            Bytes.assertSameBytes(file.read(0, data.length), data);
            file.write(0, new byte[] {7});
        }
        String fileId = credentials.getXcap().getFileId();
        // Until a removed OSD has deleted the file (its XLoc-version record goes with the objects), it refuses the old
        // credentials' read with XLOC_OUTDATED, having seen the removal's version with OSD_UNLINK: wait that out.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsMatching(error ->
                error instanceof org.xtreemfs.foundation.rpc.RpcException refused
                        && refused.errorType() == org.xtreemfs.interfaces.rpc.ErrorType.XLOC_OUTDATED)
                .untilAsserted(() -> {
            for (String removed : Replicas.chainOf(three, 0).subList(1, 3)) {
                Map<Long, byte[]> stored = Replicas.objectsReadAt(client, credentials, removed, 12);
                assertThat(stored).as("objects left on removed replica %s of %s", removed, fileId).isEmpty();
            }
        });

        ToolRun policy = ToolRun.of(new XtfsutilMain(), "--set-replication", "3", url("fill"));
        assertThat(policy.exitCode()).as(policy.err()).isZero();
        assertThat(policy.out()).contains("3");
        try (FileHandle file = volume.open("/after-policy", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            assertThat(file.credentials().getXlocs().getReplicasCount()).isEqualTo(3);
        }
        ToolRun refused = ToolRun.of(new XtfsutilMain(), "--set-replication", "9", url("fill/tool"));
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).contains("9").contains("between 1 and 8");
        ToolRun.of(new XtfsutilMain(), "--set-replication", "2", url("fill"));
    }

    private static String url(String volumeAndPath) {
        return cluster.dirUrl() + "/" + volumeAndPath;
    }
}
