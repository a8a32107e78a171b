package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * Read routing on real servers (a DIR, an MRC and three OSDs in this JVM, one chain of three): which OSD served
 * each read is read from the OSDs' status pages (storageReadsServed, reads answered from their own copy). With
 * pattern routing a sequential reader's reads go to the middle and a random reader's to the head; with round-robin
 * each open file's reads go to one replica in turn; and a loaded head (a slowed emulated disk, eight concurrent
 * random readers) has its reads taken by the idle replicas.
 */
class ReadRoutingTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;
    private static final int STEAL_FILE_OBJECTS = 256;
    private TestCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // 40 sequential 128 KiB reads and 40 random 4 KiB reads, one after the other, on separate handles: the first two
    // sequential reads are random to the classifier (a new stream starts random, it needs two following reads).
    @Test
    void patternRoutingSendsSequentialReadsToTheMiddleAndRandomReadsToTheHead() throws Exception {
        cluster = TestCluster.start(3);
        try (Client client = cluster.client()) {
            createVolume(client, "pattern", ReadRouting.READ_ROUTING_PATTERN);
            List<String> chain = writeFile(client, "pattern", 40);
            long[] before = readsServed(chain);
            try (FileHandle sequential = client.openVolume("pattern").open("/data", OpenFlags.O_RDONLY, 0)) {
                assertThat(sequential.readRouting()).isEqualTo(ReadRouting.READ_ROUTING_PATTERN);
                for (int object = 0; object < 40; object++) {
                    assertThat(sequential.read((long) object * OBJECT, OBJECT)).hasSize(OBJECT);
                }
            }
            long[] afterSequential = readsServed(chain);
            Random random = new Random(12);
            try (FileHandle randomReader = client.openVolume("pattern").open("/data", OpenFlags.O_RDONLY, 0)) {
                for (int read = 0; read < 40; read++) {
                    assertThat(randomReader.read(random.nextInt(40 * OBJECT / 4096) * 4096L, 4096)).hasSize(4096);
                }
            }
            long[] afterRandom = readsServed(chain);
            assertThat(delta(before, afterSequential)).as("sequential reads per replica (head, middle, tail)")
                    .containsExactly(2, 38, 0);
            assertThat(delta(afterSequential, afterRandom)).as("random reads per replica (head, middle, tail)")
                    .containsExactly(40, 0, 0);
        }
    }

    // Three handles on a round-robin volume, each bound to the replica of its ordinal in order of first read.
    @Test
    void roundRobinRoutingBindsEachOpenFileToOneReplicaInTurn() throws Exception {
        cluster = TestCluster.start(3);
        try (Client writer = cluster.client()) {
            createVolume(writer, "rr", ReadRouting.READ_ROUTING_ROUND_ROBIN);
            List<String> chain = writeFile(writer, "rr", 8);
            try (Client client = cluster.client()) {
                long[] before = readsServed(chain);
                List<FileHandle> handles = new ArrayList<>();
                for (int stream = 0; stream < 3; stream++) {
                    handles.add(client.openVolume("rr").open("/data", OpenFlags.O_RDONLY, 0));
                }
                int[] readsPerStream = {3, 5, 7};
                for (int stream = 0; stream < 3; stream++) {
                    assertThat(handles.get(stream).readRouting()).isEqualTo(ReadRouting.READ_ROUTING_ROUND_ROBIN);
                    for (int read = 0; read < readsPerStream[stream]; read++) {
                        handles.get(stream).read((long) read * OBJECT, OBJECT);
                    }
                }
                for (FileHandle handle : handles) {
                    handle.close();
                }
                assertThat(delta(before, readsServed(chain))).as("reads per replica (head, middle, tail)")
                        .containsExactly(3, 5, 7);
            }
        }
    }

    // Emulated HDDs; the head's disk is slowed to a tenth, so eight concurrent random readers queue there. The head
    // reports its queue in every answer and the idle middle and tail take reads from it; without the load (one
    // reader, full speed) the head serves them all.
    @Test
    void anIdleReplicaStealsReadsFromALoadedHead() throws Exception {
        cluster = TestCluster.start(3, Map.of("osd.device.emulation", "hdd7200"), Map.of());
        try (Client client = cluster.client(ClientOptions.builder().objectRequestsInFlightMax(64))) {
            createVolume(client, "steal", ReadRouting.READ_ROUTING_PATTERN);
            // 256 objects (32 MiB): twice the emulated drive's read cache (16 segments of 512 KiB), so random reads
            // pay for positioning and the slowed head's queue builds.
            List<String> chain = writeFile(client, "steal", STEAL_FILE_OBJECTS);
            long[] before = readsServed(chain);
            randomReads(client, 1, 20, 1);
            long[] idle = readsServed(chain);
            assertThat(delta(before, idle)).as("one random reader on idle replicas (head, middle, tail)")
                    .containsExactly(20, 0, 0);

            setDeviceSpeed(cluster.osdUuids().indexOf(chain.get(0)), 0.1);
            randomReads(client, 8, 25, 2);
            long[] loaded = delta(idle, readsServed(chain));
            assertThat(loaded[0] + loaded[1] + loaded[2]).isEqualTo(8 * 25);
            assertThat(loaded[1] + loaded[2]).as("reads the middle and tail took from the loaded head %s",
                    java.util.Arrays.toString(loaded)).isGreaterThanOrEqualTo(8 * 25 / 4);
        }
    }

    private void randomReads(Client client, int readers, int readsEach, long seed) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(readers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int reader = 0; reader < readers; reader++) {
                long readerSeed = seed * 100 + reader;
                done.add(pool.submit(() -> {
                    Random random = new Random(readerSeed);
                    try (FileHandle file = client.openVolume("steal").open("/data", OpenFlags.O_RDONLY, 0)) {
                        for (int read = 0; read < readsEach; read++) {
                            file.read(random.nextInt(STEAL_FILE_OBJECTS * OBJECT / 4096) * 4096L, 4096);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void createVolume(Client client, String name, ReadRouting routing) throws Exception {
        client.createVolume(Volume.newBuilder().setName(name).setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT).setWidth(1))
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3).setReadRouting(routing))
                .build());
        assertThat(client.listVolumes().stream().filter(volume -> volume.getName().equals(name)).findFirst()
                .orElseThrow().getDefaultReplicationPolicy().getReadRouting()).isEqualTo(routing);
    }

    /** Writes /data of {@code objects} whole objects; returns its chain, head first. */
    private static List<String> writeFile(Client client, String volume, int objects) throws Exception {
        try (FileHandle file = client.openVolume(volume).open("/data", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            byte[] data = new byte[objects * OBJECT];
            new Random(7).nextBytes(data);
            file.write(0, data);
            return List.of(file.replicaOsdUuids(0).get(0), file.replicaOsdUuids(1).get(0),
                    file.replicaOsdUuids(2).get(0));
        }
    }

    private long[] readsServed(List<String> chain) throws IOException, InterruptedException {
        long[] served = new long[chain.size()];
        for (int replica = 0; replica < chain.size(); replica++) {
            served[replica] = cluster.osdStatusNumber(cluster.osdUuids().indexOf(chain.get(replica)),
                    "storageReadsServed");
        }
        return served;
    }

    private void setDeviceSpeed(int osdIndex, double fraction) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + cluster.osd(osdIndex).addresses().status().getPort() + "/device/speed"))
                .POST(HttpRequest.BodyPublishers.ofString(Double.toString(fraction))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private static long[] delta(long[] before, long[] after) {
        long[] delta = new long[before.length];
        for (int i = 0; i < before.length; i++) {
            delta[i] = after[i] - before[i];
        }
        return delta;
    }
}
