package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.ServiceType;

/** Hostile bytes on the DIR's RPC port close only the offending connection; the DIR keeps serving. */
class DirBadInputTest {
    @TempDir
    Path folder;

    private final RpcClient rpcClient = new RpcClient("bad-input-test");
    private DirServer server;
    private DirServiceClient dir;

    @BeforeEach
    void start() throws Exception {
        server = new DirServer(DirConfig.forTesting(folder.resolve("db")));
        dir = new DirServiceClient(rpcClient, server.start().rpc(), 5_000);
        RpcClient.await(dir.serviceRegister(DirServerTest.osd("osd-1")));
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        server.close();
    }

    // Random bytes (seeded) make the DIR drop that connection, while a well-behaved client keeps being served.
    @Test
    void randomBytesCloseOnlyThatConnection() throws Exception {
        Random random = new Random(20_261_122L);
        for (int attempt = 0; attempt < 5; attempt++) {
            byte[] garbage = new byte[1 + random.nextInt(4096)];
            random.nextBytes(garbage);
            garbage[0] = (byte) 0x7f; // a header length far beyond the limit, whatever else the bytes say
            assertClosedByServer(garbage);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.malformedFrames() >= 5);
        assertStillServing();
    }

    // A marker announcing a frame larger than the limits is refused before the DIR allocates anything.
    @Test
    void oversizedFrameIsRefused() throws Exception {
        ByteBuffer marker = ByteBuffer.allocate(12).putInt(16).putInt(Integer.MAX_VALUE).putInt(Integer.MAX_VALUE);
        assertClosedByServer(marker.array());
        await().atMost(Duration.ofSeconds(10)).until(() -> server.malformedFrames() >= 1);
        assertStillServing();
    }

    // A frame cut short by a client that hangs up leaves nothing behind that stops the DIR.
    @Test
    void truncatedFrameLeavesTheDirServing() throws Exception {
        try (Socket socket = new Socket(server.addresses().rpc().getAddress(), server.addresses().rpc().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(12 + 5).putInt(100).putInt(10).putInt(0).put(new byte[5]).array());
            out.flush();
        }
        // A parseable-looking header that is not a protobuf RpcHeader.
        byte[] notAHeader = ByteBuffer.allocate(12 + 8).putInt(8).putInt(0).putInt(0)
                .putLong(0xFFFF_FFFF_FFFF_FFFFL).array();
        assertClosedByServer(notAHeader);
        assertStillServing();
    }

    private void assertClosedByServer(byte[] bytes) throws Exception {
        try (Socket socket = new Socket(server.addresses().rpc().getAddress(), server.addresses().rpc().getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            // The server answers nothing and closes: end of stream (or a reset) within the timeout.
            try {
                assertThat(in.read()).isEqualTo(-1);
            } catch (java.net.SocketException reset) {
                assertThat(reset.getMessage()).containsIgnoringCase("reset");
            }
        }
    }

    private void assertStillServing() throws Exception {
        RpcClient.await(dir.ping());
        assertThat(RpcClient.await(dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false)).getServicesCount())
                .isEqualTo(1);
        try (RpcClient fresh = new RpcClient("fresh-client")) {
            DirServiceClient freshDir = new DirServiceClient(fresh, server.addresses().rpc(), 5_000);
            assertThat(RpcClient.await(freshDir.serviceRegister(DirServerTest.osd("osd-2"))).getVersion())
                    .isEqualTo(1);
        }
    }
}
