package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.common.DeviceClass;
import org.xtreemfs.interfaces.common.OsdWriteResponse;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.osd.DeleteFilesRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

class OsdServerTest {
    private static final String SECRET = "osd-server-test-secret";
    private static final String UUID = "osd-under-test";
    private static final String FILE = "vol-1:100";
    private static final int OBJECT_SIZE = 4096;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path dataFolder;

    private FakeDir dir;
    private OsdServer server;
    private RpcClient rpcClient;
    private OsdServiceClient osd;
    private java.net.InetSocketAddress osdAddress;
    private final XCapSigner signer = new XCapSigner(SECRET);

    @BeforeEach
    void start() throws Exception {
        dir = new FakeDir();
        server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(dataFolder, dir.hostPort(), UUID, SECRET,
                Map.of("osd.heartbeat.periodMs", "100", "osd.deletion.delayMs", "0", "osd.usage.type", "random",
                        "osd.device.class", "ssd"))));
        osdAddress = server.start().rpc();
        rpcClient = new RpcClient("osd-server-test");
        osd = new OsdServiceClient(rpcClient, 10_000);
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        server.close();
        dir.close();
    }

    private FileCredentials credentials(AccessMode mode, int truncateEpoch, XCapSigner capSigner) {
        XCap capability = capSigner.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-1").setAccessMode(mode)
                .setExpiresMs(System.currentTimeMillis() + 600_000).setTruncateEpoch(truncateEpoch).build());
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids(UUID).setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(OBJECT_SIZE).setWidth(1)))).build();
    }

    private FileCredentials readWrite(int truncateEpoch) {
        return credentials(AccessMode.ACCESS_MODE_READ_WRITE, truncateEpoch, signer);
    }

    private OsdWriteResponse write(FileCredentials credentials, long objectNumber, int offset, byte[] data,
            boolean sync) throws RpcException {
        return RpcClient.await(osd.write(osdAddress, USER, WriteRequest.newBuilder().setCredentials(credentials)
                .setFileId(FILE).setObjectNumber(objectNumber).setOffset(offset).setSync(sync).build(),
                Unpooled.wrappedBuffer(data)));
    }

    private byte[] read(long objectNumber, int offset, int length) throws RpcException {
        try (RpcResponse response = RpcClient.await(osd.read(osdAddress, USER, ReadRequest.newBuilder()
                .setCredentials(readWrite(0)).setFileId(FILE).setObjectNumber(objectNumber).setOffset(offset)
                .setLength(length).build()))) {
            return response.dataBytes();
        }
    }

    private FileRequest fileRequest(FileCredentials credentials) {
        return FileRequest.newBuilder().setCredentials(credentials).setFileId(FILE).build();
    }

    @Test
    void concurrentSmallWritesIntoOneLargeObjectAllLandAndOverlappingOnesInOrder() throws Exception {
        // 4 KiB writes at scattered offsets of one 1 MiB object (the default object size) are all in flight at
        // once; the storage stage runs the disjoint ones together, and the two writes of the same block, sent one
        // after the other, land in that order.
        int objectBytes = 1 << 20;
        int blockBytes = 4096;
        XCap capability = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-1")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setExpiresMs(System.currentTimeMillis() + 600_000)
                .build());
        FileCredentials large = FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder()
                .addReplicas(Replica.newBuilder().addOsdUuids(UUID).setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(objectBytes).setWidth(1)))).build();
        java.util.List<Integer> blocks = new java.util.ArrayList<>();
        for (int block = 0; block < objectBytes / blockBytes; block += 2) { // every other block: holes between
            blocks.add(block);
        }
        java.util.Collections.shuffle(blocks, new java.util.Random(42));
        java.util.List<java.util.concurrent.CompletableFuture<OsdWriteResponse>> writes = new java.util.ArrayList<>();
        for (int block : blocks) {
            byte[] first = new byte[blockBytes];
            java.util.Arrays.fill(first, (byte) (block % 3 == 0 ? 0x55 : block)); // 0x55: to be overwritten
            writes.add(osd.write(osdAddress, USER, WriteRequest.newBuilder().setCredentials(large).setFileId(FILE)
                    .setObjectNumber(0).setOffset(block * blockBytes).build(), Unpooled.wrappedBuffer(first)));
            if (block % 3 == 0) { // overwritten at once: the later bytes must win
                byte[] second = new byte[blockBytes];
                java.util.Arrays.fill(second, (byte) block);
                writes.add(osd.write(osdAddress, USER, WriteRequest.newBuilder().setCredentials(large)
                        .setFileId(FILE).setObjectNumber(0).setOffset(block * blockBytes).build(),
                        Unpooled.wrappedBuffer(second)));
            }
        }
        for (java.util.concurrent.CompletableFuture<OsdWriteResponse> write : writes) {
            RpcClient.await(write);
        }
        byte[] stored;
        try (RpcResponse response = RpcClient.await(osd.read(osdAddress, USER, ReadRequest.newBuilder()
                .setCredentials(large).setFileId(FILE).setObjectNumber(0).setOffset(0).setLength(objectBytes)
                .build()))) {
            stored = response.dataBytes();
        }
        int lastBlock = objectBytes / blockBytes - 2;
        assertThat(stored).hasSize((lastBlock + 1) * blockBytes); // up to the last block written, holes as zeros
        for (int block = 0; block <= lastBlock; block++) {
            byte expected = block % 2 == 0 ? (byte) block : 0;
            for (int i = 0; i < blockBytes; i++) {
                if (stored[block * blockBytes + i] != expected) {
                    throw new AssertionError("block " + block + " byte " + i + " is " + stored[block * blockBytes + i]
                            + ", expected " + expected);
                }
            }
        }
    }

    @Test
    void writeReadTruncateFsyncAndUnlinkThroughTheRpcInterface() throws Exception {
        // Proves the whole pipeline serves every file procedure with signed capabilities, end to end.
        byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
        OsdWriteResponse first = write(readWrite(0), 0, 0, hello, false);
        assertThat(first.getNewFileSize().getSizeBytes()).isEqualTo(5);
        assertThat(read(0, 0, 100)).isEqualTo(hello);
        assertThat(write(readWrite(0), 0, 0, "J".getBytes(StandardCharsets.UTF_8), false).hasNewFileSize()).isFalse();

        OsdWriteResponse far = write(readWrite(0), 2, 10, hello, true);
        assertThat(far.getNewFileSize().getSizeBytes()).isEqualTo(2L * OBJECT_SIZE + 15);
        assertThat(read(1, 0, 100)).isEmpty();
        assertThat(read(0, 0, 100)).isEqualTo("Jello".getBytes(StandardCharsets.UTF_8));

        OsdWriteResponse truncated = RpcClient.await(osd.truncate(osdAddress, USER, TruncateRequest.newBuilder()
                .setCredentials(readWrite(1)).setFileId(FILE).setNewFileSizeBytes(OBJECT_SIZE + 4).build()));
        assertThat(truncated.getNewFileSize().getSizeBytes()).isEqualTo(OBJECT_SIZE + 4);
        assertThat(truncated.getNewFileSize().getTruncateEpoch()).isEqualTo(1);
        assertThat(read(2, 0, 100)).isEmpty();
        assertThat(read(1, 0, 100)).containsExactly(0, 0, 0, 0);
        assertThat(RpcClient.await(osd.getFileSize(osdAddress, USER, fileRequest(readWrite(1)))).getSizeBytes())
                .isEqualTo(OBJECT_SIZE + 4);
        assertThatThrownBy(() -> RpcClient.await(osd.truncate(osdAddress, USER, TruncateRequest.newBuilder()
                .setCredentials(readWrite(0)).setFileId(FILE).setNewFileSizeBytes(1).build())))
                .hasMessageContaining("older than epoch 1");

        RpcClient.await(osd.fsync(osdAddress, USER, fileRequest(readWrite(1))));
        RpcClient.await(osd.ping(osdAddress));

        RpcClient.await(osd.unlink(osdAddress, USER, fileRequest(readWrite(1))));
        // The deletion record leaves the queue only after the objects are gone (DeletionQueue.complete), so the
        // objects can be gone a moment before the record: wait for both.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !server.store().exists(FILE) && server.deletions().pendingCount() == 0);
    }

    @Test
    void theMrcsBatchOfDeletedFilesIsCheckedWhollyThenDeleted() throws Exception {
        // Proves OSD_DELETE_FILES refuses a whole batch with one bad capability (naming it) or one file whose XLoc
        // does not name this OSD, recording nothing, and that an accepted batch deletes the objects.
        write(readWrite(0), 0, 0, "doomed".getBytes(StandardCharsets.UTF_8), true);
        FileRequest foreign = fileRequest(credentials(AccessMode.ACCESS_MODE_READ_WRITE, 0,
                new XCapSigner("other-secret")));
        assertThatThrownBy(() -> RpcClient.await(osd.deleteFiles(osdAddress, USER, DeleteFilesRequest.newBuilder()
                .addFiles(fileRequest(readWrite(0))).addFiles(foreign).build())))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                .hasMessageContaining("invalid signature");
        FileCredentials elsewhere = readWrite(0).toBuilder().setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids("another-osd").setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(OBJECT_SIZE).setWidth(1)))).build();
        assertThatThrownBy(() -> RpcClient.await(osd.deleteFiles(osdAddress, USER, DeleteFilesRequest.newBuilder()
                .addFiles(fileRequest(elsewhere)).build())))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS))
                .hasMessageContaining("not in the XLoc");
        assertThat(server.deletions().pendingCount()).isZero();
        assertThat(server.store().exists(FILE)).isTrue();

        RpcClient.await(osd.deleteFiles(osdAddress, USER, DeleteFilesRequest.newBuilder()
                .addFiles(fileRequest(readWrite(0))).addFiles(FileRequest.newBuilder().setFileId("vol-1:101")
                        .setCredentials(readWrite(0).toBuilder().setXcap(signer.sign(readWrite(0).getXcap()
                                .toBuilder().setFileId("vol-1:101").clearSignature().build())))).build()));
        await().atMost(Duration.ofSeconds(10)).until(() -> !server.store().exists(FILE)
                && server.deletions().pendingCount() == 0);
    }

    @Test
    void badCapabilitiesAndBadRangesAreRefusedWithTypedErrors() {
        // Proves wrong secrets and read-only writes fail AUTH_FAILED and out-of-object ranges INVALID_ARGS.
        FileCredentials foreign = credentials(AccessMode.ACCESS_MODE_READ_WRITE, 0, new XCapSigner("other-secret"));
        assertThatThrownBy(() -> write(foreign, 0, 0, new byte[1], false)).isInstanceOfSatisfying(
                RpcException.class, e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED));
        FileCredentials readOnly = credentials(AccessMode.ACCESS_MODE_READ, 0, signer);
        assertThatThrownBy(() -> write(readOnly, 0, 0, new byte[1], false)).isInstanceOfSatisfying(
                RpcException.class, e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                .hasMessageContaining("needs write access");
        assertThatThrownBy(() -> write(readWrite(0), 0, OBJECT_SIZE - 1, new byte[2], false))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS))
                .hasMessageContaining("object size " + OBJECT_SIZE);
    }

    @Test
    void garbageAndOversizedFramesCloseOnlyTheirConnection() throws Exception {
        // Proves random bytes and a frame claiming a huge data segment leave the OSD serving everyone else.
        java.util.Random random = new java.util.Random(42);
        byte[] garbage = new byte[4096];
        random.nextBytes(garbage);
        byte[] oversized = java.nio.ByteBuffer.allocate(12).putInt(100).putInt(100).putInt(Integer.MAX_VALUE).array();
        for (byte[] bytes : new byte[][] {garbage, oversized, new byte[] {0, 0, 0}}) {
            try (java.net.Socket socket = new java.net.Socket(osdAddress.getAddress(), osdAddress.getPort())) {
                socket.getOutputStream().write(bytes);
                socket.getOutputStream().flush();
            }
        }
        RpcClient.await(osd.ping(osdAddress));
        byte[] data = {9, 8, 7};
        write(readWrite(0), 0, 0, data, false);
        assertThat(read(0, 0, 3)).isEqualTo(data);
    }

    @Test
    void registersAtTheDirWithItsAttributesAndAddress() {
        // Proves the OSD sets its address mapping and heartbeats its type, device class and space.
        await().atMost(Duration.ofSeconds(10)).until(() -> dir.registrations.size() >= 2);
        Service service = dir.registrations.get(dir.registrations.size() - 1);
        assertThat(service.getUuid()).isEqualTo(UUID);
        assertThat(service.getOsdAttributes().getUsageType()).isEqualTo(OsdUsageType.OSD_RANDOM);
        assertThat(service.getOsdAttributes().getDeviceClass()).isEqualTo(DeviceClass.SSD);
        assertThat(service.getOsdAttributes().getTotalBytes()).isPositive();
        assertThat(dir.mappings).hasSize(1);
        assertThat(dir.mappings.get(0).getMappings(0).getPort()).isEqualTo(osdAddress.getPort());
        assertThat(dir.mappings.get(0).getMappings(0).getAddress()).isEqualTo("127.0.0.1");
    }
}
