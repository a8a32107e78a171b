package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** Garbage, truncated and oversized frames on every server port of a running cluster leave it serving. */
class BadInputTest {
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // After random bytes, a frame cut short and a frame announcing 2 GiB on the DIR, MRC and OSD ports, each
    // server still answers pings from a well-behaved client, and file I/O through all of them works.
    @Test
    void serversKeepServingAfterBadFrames() throws Exception {
        List<InetSocketAddress> ports = List.of(cluster.dirAddress(), cluster.mrc().address(),
                cluster.osd(0).addresses().rpc());
        Random random = new Random(99);
        for (InetSocketAddress port : ports) {
            byte[] garbage = new byte[4096];
            random.nextBytes(garbage);
            sendAndClose(port, garbage);
            sendAndClose(port, concat(marker(200, 10, 0), new byte[50]));
            sendAndClose(port, marker(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE));
            sendAndClose(port, new byte[] {0, 0, 0});
        }
        try (RpcClient rpc = new RpcClient("bad-input-probe")) {
            RpcClient.await(new DirServiceClient(rpc, cluster.dirAddress(), 5_000).ping());
            RpcClient.await(new MrcServiceClient(rpc, 5_000).ping(cluster.mrc().address(),
                    UserCredentials.getDefaultInstance(), Empty.getDefaultInstance()));
            RpcClient.await(new OsdServiceClient(rpc, 5_000).ping(cluster.osd(0).addresses().rpc()));
        }
        try (Client client = cluster.client()) {
            Volumes.create(client, "afterbadinput", 1);
            Volume volume = client.openVolume("afterbadinput");
            try (FileHandle file = volume.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                file.write(0, new byte[] {42});
                assertThat(file.read(0, 1)).containsExactly(42);
            }
        }
    }

    /** Sends bytes, then waits briefly for the server to close (or answer) before closing our side. */
    private static void sendAndClose(InetSocketAddress address, byte[] bytes) throws Exception {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            try {
                in.read(new byte[1024]);
            } catch (java.net.SocketTimeoutException | java.net.SocketException expected) {
                // A server waiting for the rest of a frame, or one that reset the connection: both fine.
            }
        }
    }

    private static byte[] marker(int headerLength, int messageLength, int dataLength) {
        return ByteBuffer.allocate(12).putInt(headerLength).putInt(messageLength).putInt(dataLength).array();
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] joined = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, joined, first.length, second.length);
        return joined;
    }
}
