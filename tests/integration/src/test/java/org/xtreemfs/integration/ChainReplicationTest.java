package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * Chain replication on real servers (a DIR, an MRC and four OSDs in this JVM): placement of the replicas, writes
 * through the head and reads from the tail, identical bytes on every replica afterwards, truncate and delete on
 * every replica, updates refused at a non-head member, and refusal when there are fewer OSDs than replicas. The
 * tail keeps its copy in the log-structured layout, head and middle in the conventional one (osd.storage.layout=role).
 */
class ChainReplicationTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;
    private static final int OSDS = 4;
    private static TestCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(OSDS, Map.of("osd.deletion.delayMs", "0"), Map.of());
        client = cluster.client();
        create("chain3", 1, 3);
        create("striped2x2", 2, 2);
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

    // Three replicas of width 1: the XLoc (version 1) lists three distinct OSDs, head first; the volume keeps
    // its policy.
    @Test
    void replicasArePlacedOnDistinctOsds() throws Exception {
        Volume volume = client.openVolume("chain3");
        try (FileHandle file = volume.open("/placed", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            XLocSet xlocs = file.credentials().getXlocs();
            assertThat(xlocs.getVersion()).isEqualTo(1);
            assertThat(xlocs.getReplicasCount()).isEqualTo(3);
            List<String> members = chainOf(xlocs, 0);
            assertThat(new HashSet<>(members)).hasSize(3);
            assertThat(cluster.osdUuids()).containsAll(members);
            assertThat(file.stripeOsdUuids()).containsExactly(members.get(0));
            assertThat(file.replicaOsdUuids(2)).containsExactly(members.get(2));
            assertThat(xlocs.getReadRouting()).isEqualTo(ReadRouting.READ_ROUTING_PATTERN);
        }
        assertThat(client.listVolumes().stream().filter(v -> v.getName().equals("chain3")).findFirst().orElseThrow()
                .getDefaultReplicationPolicy().getReplicas()).isEqualTo(3);
    }

    // Random-sized, partly overlapping writes through the head; a fresh client reads the same bytes from the
    // tail, and each of the three OSDs stores exactly the same objects with the same bytes (the fourth none).
    @Test
    void chainWritesLeaveIdenticalReplicas() throws Exception {
        Random random = new Random(20261127);
        byte[] expected = new byte[5 * OBJECT + 777];
        String fileId;
        List<String> members;
        FileCredentials credentials;
        List<byte[]> firstObjectSlices = new ArrayList<>();
        try (FileHandle file = client.openVolume("chain3").open("/identical", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                0644)) {
            fileId = file.fileId();
            credentials = file.credentials();
            members = chainOf(file.credentials().getXlocs(), 0);
            for (int piece = 0; piece < 40; piece++) {
                int offset = random.nextInt(expected.length);
                int length = 1 + random.nextInt(Math.min(expected.length - offset, 2 * OBJECT));
                byte[] data = new byte[length];
                random.nextBytes(data);
                System.arraycopy(data, 0, expected, offset, length);
                file.write(offset, data);
                int inFirstObject = Math.min(length, OBJECT - offset % OBJECT);
                if (inFirstObject >= 64) {
                    firstObjectSlices.add(Arrays.copyOf(data, inFirstObject));
                }
            }
            file.write(expected.length - 1, new byte[] {expected[expected.length - 1]});
        }
        try (Client fresh = cluster.client();
                FileHandle file = fresh.openVolume("chain3").open("/identical", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.sizeBytes()).isEqualTo(expected.length);
            assertThat(file.read(0, expected.length)).isEqualTo(expected);
        }
        Map<Long, byte[]> head = objectsOn(members.get(0), fileId);
        assertThat(head).hasSize(6);
        // Head and middle keep the conventional layout (a file per object); the tail keeps its copy in its log
        // (osd.storage.layout=role, the default): no object files there, the bytes in its log segments, and the same
        // objects read back from it.
        assertThat(objectsOn(members.get(1), fileId)).as("object files on the middle %s", members.get(1))
                .usingRecursiveComparison().isEqualTo(head);
        assertThat(objectsOn(members.get(2), fileId)).as("object files on the tail").isEmpty();
        assertThat(objectsOn(members.get(0), fileId, credentials)).usingRecursiveComparison().isEqualTo(head);
        assertThat(objectsOn(members.get(2), fileId, credentials)).as("objects read at the tail")
                .usingRecursiveComparison().isEqualTo(head);
        // Each write reached the tail's log as one record per object it touched: the part in its first object is
        // stored there as one run of bytes (and nowhere in the head's log).
        for (byte[] slice : firstObjectSlices) {
            assertThat(Replicas.logHolds(dataFolderOf(members.get(2)), slice)).as("the tail's log holds a write")
                    .isTrue();
            assertThat(Replicas.logHolds(dataFolderOf(members.get(0)), slice)).as("the head keeps no log copy")
                    .isFalse();
        }
        byte[] rebuilt = new byte[expected.length];
        head.forEach((number, bytes) -> System.arraycopy(bytes, 0, rebuilt, (int) (number * OBJECT), bytes.length));
        assertThat(rebuilt).isEqualTo(expected);
        for (String other : cluster.osdUuids()) {
            if (!members.contains(other)) {
                assertThat(objectsOn(other, fileId)).isEmpty();
            }
        }
    }

    // Striped over 2 OSDs and replicated twice: four distinct OSDs, two chains; data reads back and each chain's
    // members hold the same objects.
    @Test
    void stripedAndReplicatedFile() throws Exception {
        byte[] expected = new byte[7 * OBJECT + 5];
        new Random(7).nextBytes(expected);
        String fileId;
        XLocSet xlocs;
        FileCredentials credentials;
        try (FileHandle file = client.openVolume("striped2x2").open("/both", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                0644)) {
            fileId = file.fileId();
            credentials = file.credentials();
            xlocs = credentials.getXlocs();
            file.write(0, expected);
            file.fsync();
        }
        assertThat(xlocs.getReplicasCount()).isEqualTo(2);
        Set<String> all = new HashSet<>(chainOf(xlocs, 0));
        all.addAll(chainOf(xlocs, 1));
        assertThat(all).hasSize(4);
        try (FileHandle file = cluster.client().openVolume("striped2x2").open("/both", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, expected.length)).isEqualTo(expected);
        }
        for (int position = 0; position < 2; position++) {
            List<String> chain = chainOf(xlocs, position);
            Map<Long, byte[]> headObjects = objectsOn(chain.get(0), fileId);
            int stripePosition = position;
            assertThat(headObjects.keySet()).allMatch(number -> number % 2 == stripePosition);
            assertThat(objectsOn(chain.get(1), fileId)).as("object files on the tail").isEmpty();
            Map<Long, byte[]> tailObjects = objectsOn(chain.get(1), fileId, credentials);
            assertThat(tailObjects).usingRecursiveComparison().isEqualTo(headObjects);
        }
    }

    // A truncate sent to the head cuts every replica alike; an unlink removes the objects on every replica.
    @Test
    void truncateAndDeleteReachEveryReplica() throws Exception {
        Volume volume = client.openVolume("chain3");
        byte[] data = new byte[4 * OBJECT];
        new Random(3).nextBytes(data);
        String fileId;
        List<String> members;
        FileCredentials credentials;
        try (FileHandle file = volume.open("/cut", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            fileId = file.fileId();
            credentials = file.credentials();
            members = chainOf(file.credentials().getXlocs(), 0);
            file.write(0, data);
            file.truncate(OBJECT + 100);
        }
        for (String member : members) {
            Map<Long, byte[]> objects = objectsOn(member, fileId, credentials);
            assertThat(objects.keySet()).as("objects on %s", member).containsExactly(0L, 1L);
            assertThat(objects.get(1L)).as("object 1 on %s", member)
                    .isEqualTo(Arrays.copyOfRange(data, OBJECT, OBJECT + 100));
        }
        try (FileHandle file = cluster.client().openVolume("chain3").open("/cut", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, 4 * OBJECT)).isEqualTo(Arrays.copyOf(data, OBJECT + 100));
        }
        volume.unlink("/cut");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (String member : members) {
                assertThat(objectsOn(member, fileId)).as("objects on %s after unlink", member).isEmpty();
                assertThat(objectsOn(member, fileId, credentials)).as("objects read at %s after unlink", member)
                        .isEmpty();
            }
        });
    }

    // Only a chain predecessor may hand an update to a non-head member: a client's write to the tail is
    // REDIRECT naming the head, and nothing is stored there.
    @Test
    void updatesAtNonHeadMembersAreRedirectedToTheHead() throws Exception {
        FileCredentials credentials;
        String fileId;
        try (FileHandle file = client.openVolume("chain3").open("/direct", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                0644)) {
            credentials = file.credentials();
            fileId = file.fileId();
        }
        List<String> members = chainOf(credentials.getXlocs(), 0);
        try (RpcClient rpc = new RpcClient("chain-test")) {
            var osds = new org.xtreemfs.foundation.stubs.OsdServiceClient(rpc, 10_000);
            assertThatThrownBy(() -> RpcClient.await(osds.write(client.resolve(members.get(2)), null,
                    WriteRequest.newBuilder().setCredentials(credentials).setFileId(fileId).build(),
                    Unpooled.wrappedBuffer(new byte[] {1, 2, 3}))))
                    .isInstanceOfSatisfying(RpcException.class, e -> {
                        assertThat(e.errorType()).isEqualTo(ErrorType.REDIRECT);
                        assertThat(e.getMessage()).contains("replica 3 of 3").contains(members.get(0));
                    });
        }
        assertThat(objectsOn(members.get(2), fileId, credentials)).isEmpty();
    }

    // Five replicas on four OSDs: the volume is refused at creation naming the replicas, the OSDs they need and the
    // OSDs there are (VolumeCreateOp.requirePlaceableWidth). A replica count past the bound is refused at creation
    // naming the value.
    @Test
    void tooFewOsdsForTheReplicasIsRefusedNamingTheNumbers() throws Exception {
        assertThatThrownBy(() -> create("chain5", 1, 5))
                .isInstanceOfSatisfying(XtreemFSException.class, e -> assertThat(e.getMessage())
                        .contains("5 replicas of striping width 1 need 5 distinct OSDs")
                        .contains("only the 4 OSD(s) registered"));
        assertThatThrownBy(() -> create("chain9", 1, 9))
                .isInstanceOfSatisfying(XtreemFSException.class, e -> assertThat(e.getMessage())
                        .contains("invalid replication replicas 9").contains("between 1 and 8"));
    }

    private static void create(String name, int width, int replicas) throws XtreemFSException {
        client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName(name).setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT).setWidth(width))
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(replicas))
                .build());
    }

    /** The chain of one stripe position, head first. */
    private static List<String> chainOf(XLocSet xlocs, int position) {
        List<String> chain = new ArrayList<>();
        xlocs.getReplicasList().forEach(replica -> chain.add(replica.getOsdUuids(position)));
        return chain;
    }

    /** The objects an OSD serves of a file (0..7), read over RPC: the tail's are in its log. */
    private static Map<Long, byte[]> objectsOn(String osdUuid, String fileId, FileCredentials credentials)
            throws Exception {
        assertThat(credentials.getXcap().getFileId()).isEqualTo(fileId);
        return Replicas.objectsReadAt(client, credentials, osdUuid, 8);
    }

    private static java.nio.file.Path dataFolderOf(String osdUuid) {
        return cluster.osdDataFolder(cluster.osdUuids().indexOf(osdUuid));
    }

    /** The object files one OSD stores for a file (conventional layout), by object number, with their bytes. */
    private static Map<Long, byte[]> objectsOn(String osdUuid, String fileId) throws IOException {
        return Volumes.storedObjectBytes(cluster.osdDataFolder(cluster.osdUuids().indexOf(osdUuid)), fileId);
    }
}
