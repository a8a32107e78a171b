package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** A file striped over three in-process OSDs, read back the way a client reassembles it. */
class OsdStripingTest {
    private static final String SECRET = "striping-test-secret";
    private static final String FILE = "vol-s:3";
    private static final int OBJECT_SIZE = 4096;  // the smallest valid object size (StripingRules)
    private static final int WIDTH = 3;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path folder;

    private FakeDir dir;
    private final List<OsdServer> servers = new ArrayList<>();
    private final List<InetSocketAddress> addresses = new ArrayList<>();
    private RpcClient rpcClient;
    private OsdServiceClient osd;
    private final XCapSigner signer = new XCapSigner(SECRET);

    @BeforeEach
    void start() throws Exception {
        dir = new FakeDir();
        for (int position = 0; position < WIDTH; position++) {
            OsdServer server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(folder.resolve("osd" + position),
                    dir.hostPort(), "osd-" + position, SECRET, Map.of())));
            servers.add(server);
            addresses.add(server.start().rpc());
        }
        rpcClient = new RpcClient("striping-test");
        osd = new OsdServiceClient(rpcClient, 10_000);
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        servers.forEach(OsdServer::close);
        dir.close();
    }

    private FileCredentials credentials(int truncateEpoch) {
        XCap capability = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-s")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setTruncateEpoch(truncateEpoch)
                .setExpiresMs(System.currentTimeMillis() + 600_000).build());
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids("osd-0").addOsdUuids("osd-1").addOsdUuids("osd-2")
                        .setStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(OBJECT_SIZE)
                                .setWidth(WIDTH)))).build();
    }

    /** Writes file bytes at a file offset, split into object writes sent to each object's OSD. */
    private void writeFile(long fileOffset, byte[] data) throws RpcException {
        int written = 0;
        while (written < data.length) {
            long offset = fileOffset + written;
            long objectNumber = offset / OBJECT_SIZE;
            int inObject = (int) (offset % OBJECT_SIZE);
            int length = Math.min(OBJECT_SIZE - inObject, data.length - written);
            RpcClient.await(osd.write(addresses.get((int) (objectNumber % WIDTH)), USER, WriteRequest.newBuilder()
                    .setCredentials(credentials(0)).setFileId(FILE).setObjectNumber(objectNumber)
                    .setOffset(inObject).build(), Unpooled.wrappedBuffer(data, written, length)));
            written += length;
        }
    }

    /** Reads the whole file of the given size, padding short reads with zeros as a client does. */
    private byte[] readFile(long sizeBytes, int truncateEpoch) throws RpcException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        for (long objectNumber = 0; objectNumber * OBJECT_SIZE < sizeBytes; objectNumber++) {
            int wanted = (int) Math.min(OBJECT_SIZE, sizeBytes - objectNumber * OBJECT_SIZE);
            try (RpcResponse response = RpcClient.await(osd.read(addresses.get((int) (objectNumber % WIDTH)), USER,
                    ReadRequest.newBuilder().setCredentials(credentials(truncateEpoch)).setFileId(FILE)
                            .setObjectNumber(objectNumber).setLength(wanted).build()))) {
                byte[] stored = response.dataBytes();
                file.writeBytes(stored);
                file.writeBytes(new byte[wanted - stored.length]);
            }
        }
        return file.toByteArray();
    }

    private void truncate(long sizeBytes, int truncateEpoch) throws RpcException {
        for (InetSocketAddress address : addresses) {
            RpcClient.await(osd.truncate(address, USER, TruncateRequest.newBuilder()
                    .setCredentials(credentials(truncateEpoch)).setFileId(FILE).setNewFileSizeBytes(sizeBytes).build()));
        }
    }

    @Test
    void stripedWritesHolesAndTruncatesReadBackLikeALocalFile() throws Exception {
        // Proves object placement, sparse holes and truncate down/up across object boundaries over three OSDs
        // give the same bytes as the same operations on an in-memory model of the file.
        Random random = new Random(7);
        byte[] model = new byte[0];
        byte[] first = new byte[OBJECT_SIZE * 9 / 2];
        random.nextBytes(first);
        writeFile(0, first);
        model = first.clone();
        byte[] far = new byte[OBJECT_SIZE * 7 / 10];
        random.nextBytes(far);
        int farOffset = OBJECT_SIZE * 765 / 100;
        writeFile(farOffset, far);
        model = Arrays.copyOf(model, farOffset + far.length);
        System.arraycopy(far, 0, model, farOffset, far.length);
        assertThat(readFile(model.length, 0)).isEqualTo(model);

        truncate(OBJECT_SIZE * 2345 / 1000, 1);
        model = Arrays.copyOf(model, OBJECT_SIZE * 2345 / 1000);
        assertThat(readFile(model.length, 1)).isEqualTo(model);
        assertThat(servers.get(0).store().storedObjects(FILE)).containsExactly(0L);
        assertThat(servers.get(2).store().storedObjects(FILE)).containsExactly(2L);

        truncate(OBJECT_SIZE * 501 / 100, 2);
        model = Arrays.copyOf(model, OBJECT_SIZE * 501 / 100);
        assertThat(readFile(model.length, 2)).isEqualTo(model);
        assertThat(servers.get(2).store().storedObjects(FILE)).containsExactly(2L, 5L);
    }
}
