package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.osd.storage.LogStructuredStore;

/**
 * A real OSD process with {@code osd.storage.layout=log}: random 4 KiB synced writes (overwrites included), kill -9,
 * restart, every acknowledged block read back; then compaction brings the log within its dead-bytes bound while the
 * OSD serves, and everything still reads back.
 */
class OsdLogLayoutCrashTest {
    private static final String SECRET = "log-crash-secret";
    private static final String UUID = "log-crash-osd";
    private static final int OBJECT_SIZE = 64 * 1024;
    private static final int BLOCK = 4096;
    private static final int OBJECTS_PER_FILE = 16;
    private static final int WRITERS = 4;
    private static final long SEGMENT_BYTES = 1 << 20;
    private static final int DEAD_PERCENT_MAX = 25;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("log-crash").build();

    @TempDir
    Path dataFolder;

    private final List<Process> processes = new ArrayList<>();
    private final XCapSigner signer = new XCapSigner(SECRET);

    /** A block's content: the last acknowledged write, and the one in flight at the kill (it may have landed). */
    private record BlockState(long acknowledgedGeneration, long inFlightGeneration) {}

    @AfterEach
    void killLeftovers() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void acknowledgedRandomWritesSurviveKillMinusNineAndCompactionKeepsItsBound() throws Exception {
        Map<String, BlockState> blocks = new ConcurrentHashMap<>();
        AtomicLong acknowledged = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("log-crash-test")) {
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 10_000);
            InetSocketAddress first = startOsd(dir.hostPort(), 1);
            List<Thread> writers = new ArrayList<>();
            for (int writer = 0; writer < WRITERS; writer++) {
                int id = writer;
                Thread thread = new Thread(() -> write(osd, first, id, stop, blocks, acknowledged), "log-writer-" + id);
                thread.start();
                writers.add(thread);
            }
            // Enough to fill several segments with overwrites: 4 files x 16 objects x 16 blocks = 1024 blocks.
            await().atMost(Duration.ofSeconds(120)).until(() -> acknowledged.get() >= 2500);
            processes.get(0).destroyForcibly().waitFor();
            stop.set(true);
            for (Thread thread : writers) {
                thread.join(30_000);
            }

            InetSocketAddress second = startOsd(dir.hostPort(), 2);
            assertEveryBlockReadsBack(osd, second, blocks);
            // Compaction (4 MiB/s here, running since the first start) keeps the dead bytes within 25 % of the
            // sealed segments: the log is at most live / 0.75 plus the head segment (plus the records' headers,
            // under 2 % at 4 KiB), though the writes appended far more than that.
            long liveBytes = (long) blocks.size() * BLOCK;
            long boundBytes = (long) (liveBytes * 1.02 / (1 - DEAD_PERCENT_MAX / 100.0)) + SEGMENT_BYTES;
            assertThat(acknowledged.get() * BLOCK).as("bytes appended").isGreaterThan(boundBytes);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> logBytes() <= boundBytes);
            assertThat(Files.exists(dataFolder.resolve(LogStructuredStore.LOG_FOLDER)
                    .resolve("00000000000000000000.seg"))).as("the first segment, compacted away").isFalse();
            assertEveryBlockReadsBack(osd, second, blocks);
        }
    }

    private long logBytes() throws IOException {
        try (Stream<Path> segments = Files.list(dataFolder.resolve(LogStructuredStore.LOG_FOLDER))) {
            long total = 0;
            for (Path segment : segments.toList()) {
                total += Files.size(segment);
            }
            return total;
        }
    }

    private void assertEveryBlockReadsBack(OsdServiceClient osd, InetSocketAddress address,
            Map<String, BlockState> blocks) throws Exception {
        assertThat(blocks).hasSizeGreaterThan(500);
        for (Map.Entry<String, BlockState> block : blocks.entrySet()) {
            String[] parts = block.getKey().split("/");
            String fileId = parts[0];
            long objectNumber = Long.parseLong(parts[1]);
            int offset = Integer.parseInt(parts[2]);
            try (RpcResponse response = RpcClient.await(osd.read(address, USER, ReadRequest.newBuilder()
                    .setCredentials(credentials(fileId)).setFileId(fileId).setObjectNumber(objectNumber)
                    .setOffset(offset).setLength(BLOCK).build()))) {
                byte[] stored = response.dataBytes();
                BlockState state = block.getValue();
                if (state.inFlightGeneration() >= 0 && java.util.Arrays.equals(stored,
                        content(block.getKey(), state.inFlightGeneration()))) {
                    continue; // the write in flight at the kill reached the disk: also correct
                }
                assertThat(stored).as("block %s (generation %d)", block.getKey(), state.acknowledgedGeneration())
                        .isEqualTo(content(block.getKey(), state.acknowledgedGeneration()));
            }
        }
    }

    /**
     * Synced 4 KiB writes at random aligned offsets of the writer's own file, until stopped or the OSD dies; each
     * block remembers its last acknowledged content and the write in flight.
     */
    private void write(OsdServiceClient osd, InetSocketAddress address, int writer, AtomicBoolean stop,
            Map<String, BlockState> blocks, AtomicLong acknowledged) {
        String fileId = "log-volume:" + writer;
        FileCredentials credentials = credentials(fileId);
        Random random = new Random(1000 + writer);
        try {
            for (long generation = 0; !stop.get(); generation++) {
                long objectNumber = random.nextInt(OBJECTS_PER_FILE);
                int offset = random.nextInt(OBJECT_SIZE / BLOCK) * BLOCK;
                String key = fileId + "/" + objectNumber + "/" + offset;
                BlockState before = blocks.get(key);
                if (before != null) {
                    blocks.put(key, new BlockState(before.acknowledgedGeneration(), generation));
                }
                RpcClient.await(osd.write(address, USER, WriteRequest.newBuilder().setCredentials(credentials)
                        .setFileId(fileId).setObjectNumber(objectNumber).setOffset(offset).setSync(true).build(),
                        Unpooled.wrappedBuffer(content(key, generation))));
                blocks.put(key, new BlockState(generation, -1));
                acknowledged.incrementAndGet();
            }
        } catch (Exception expectedWhenKilled) {
            // The OSD was killed: calls fail from here on; what was acknowledged before is recorded.
        }
    }

    private static byte[] content(String key, long generation) {
        Random random = new Random(key.hashCode() * 1_000_003L + generation);
        byte[] data = new byte[BLOCK];
        random.nextBytes(data);
        ByteBuffer.wrap(data).putLong(generation);
        return data;
    }

    private InetSocketAddress startOsd(String dirHostPort, int run) throws IOException {
        return OsdProcesses.start(TestOsdConfigs.loopback(dataFolder, dirHostPort, UUID, SECRET, Map.of(
                "osd.heartbeat.periodMs", "200", "osd.storage.layout", "log",
                "osd.storage.log.segmentBytes", Long.toString(SEGMENT_BYTES),
                "osd.storage.log.deadPercentMax", Integer.toString(DEAD_PERCENT_MAX),
                "osd.storage.log.compactionBytesPerSecond", "4MiB")),
                dataFolder.resolve("osd-run-" + run + ".log"), processes);
    }

    private FileCredentials credentials(String fileId) {
        XCap capability = signer.sign(XCap.newBuilder().setFileId(fileId).setVolumeId("log-volume")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE)
                .setExpiresMs(System.currentTimeMillis() + 600_000).build());
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids(UUID).setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(OBJECT_SIZE).setWidth(1)))).build();
    }
}
