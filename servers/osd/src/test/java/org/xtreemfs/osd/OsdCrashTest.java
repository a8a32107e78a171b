package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** Kills a separate OSD process with SIGKILL during writes and checks what it acknowledged afterwards. */
class OsdCrashTest {
    private static final String SECRET = "crash-test-secret";
    private static final String UUID = "crash-osd";
    private static final int OBJECT_SIZE = 8192;
    private static final int WRITERS = 4;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("crash").build();

    @TempDir
    Path dataFolder;

    private final List<Process> processes = new ArrayList<>();
    private final XCapSigner signer = new XCapSigner(SECRET);

    @AfterEach
    void killLeftovers() {
        processes.forEach(Process::destroyForcibly);
    }

    private InetSocketAddress startOsd(String dirHostPort, int run) throws IOException {
        return OsdProcesses.start(TestOsdConfigs.loopback(dataFolder, dirHostPort, UUID, SECRET,
                Map.of("osd.heartbeat.periodMs", "200")), dataFolder.resolve("osd-run-" + run + ".log"), processes);
    }

    private FileCredentials credentials(String fileId) {
        XCap capability = signer.sign(XCap.newBuilder().setFileId(fileId).setVolumeId("crash-volume")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE)
                .setExpiresMs(System.currentTimeMillis() + 600_000).build());
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids(UUID).setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(OBJECT_SIZE).setWidth(1)))).build();
    }

    private static byte[] content(int writer, long objectNumber) {
        byte[] data = new byte[OBJECT_SIZE];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (writer * 31 + objectNumber * 7 + i);
        }
        return data;
    }

    @Test
    void everyWriteAcknowledgedAsDurableSurvivesKillMinusNine() throws Exception {
        // Proves sync writes and writes followed by an acknowledged OSD_FSYNC are intact after SIGKILL.
        Map<String, Long> durableObjects = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("crash-test")) {
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 10_000);
            InetSocketAddress first = startOsd(dir.hostPort(), 1);
            List<Thread> writers = new ArrayList<>();
            for (int writer = 0; writer < WRITERS; writer++) {
                int id = writer;
                Thread thread = new Thread(() -> write(osd, first, id, stop, durableObjects), "crash-writer-" + id);
                thread.start();
                writers.add(thread);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> durableObjects.values().stream()
                    .mapToLong(Long::longValue).sum() >= 120);
            processes.get(0).destroyForcibly().waitFor();
            stop.set(true);
            for (Thread thread : writers) {
                thread.join(30_000);
            }

            InetSocketAddress second = startOsd(dir.hostPort(), 2);
            assertThat(durableObjects).hasSize(WRITERS);
            for (int writer = 0; writer < WRITERS; writer++) {
                String fileId = "crash-volume:" + writer;
                long objects = durableObjects.get(fileId);
                for (long objectNumber = 0; objectNumber < objects; objectNumber++) {
                    try (RpcResponse response = RpcClient.await(osd.read(second, USER, ReadRequest.newBuilder()
                            .setCredentials(credentials(fileId)).setFileId(fileId).setObjectNumber(objectNumber)
                            .setOffset(0).setLength(OBJECT_SIZE).build()))) {
                        assertThat(response.dataBytes()).as("object %d of %s", objectNumber, fileId)
                                .isEqualTo(content(writer, objectNumber));
                    }
                }
                assertThat(RpcClient.await(osd.getFileSize(second, USER, FileRequest.newBuilder()
                        .setCredentials(credentials(fileId)).setFileId(fileId).build())).getSizeBytes())
                        .isGreaterThanOrEqualTo(objects * OBJECT_SIZE);
            }
        }
    }

    /**
     * Appends whole objects to the writer's own file until told to stop or the OSD dies. Even writers use
     * sync=true; odd writers write without sync and send OSD_FSYNC after every third object. Records how
     * many leading objects are acknowledged as durable.
     */
    private void write(OsdServiceClient osd, InetSocketAddress address, int writer, AtomicBoolean stop,
            Map<String, Long> durableObjects) {
        String fileId = "crash-volume:" + writer;
        FileCredentials credentials = credentials(fileId);
        boolean sync = writer % 2 == 0;
        durableObjects.put(fileId, 0L);
        try {
            for (long objectNumber = 0; !stop.get(); objectNumber++) {
                RpcClient.await(osd.write(address, USER, WriteRequest.newBuilder().setCredentials(credentials)
                        .setFileId(fileId).setObjectNumber(objectNumber).setOffset(0).setSync(sync).build(),
                        Unpooled.wrappedBuffer(content(writer, objectNumber))));
                if (sync) {
                    durableObjects.put(fileId, objectNumber + 1);
                } else if (objectNumber % 3 == 2) {
                    RpcClient.await(osd.fsync(address, USER, FileRequest.newBuilder().setCredentials(credentials)
                            .setFileId(fileId).build()));
                    durableObjects.put(fileId, objectNumber + 1);
                }
            }
        } catch (Exception expectedWhenKilled) {
            // The OSD was killed: calls fail from here on; what was acknowledged before is recorded.
        }
    }
}
