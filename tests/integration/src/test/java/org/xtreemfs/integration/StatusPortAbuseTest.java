package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.tools.cluster.LocalCluster;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;

/**
 * Issue 13's status-port attack on a DIR running as its own process: two connections that send half a request
 * took the old status page down for as long as they stayed open, and each request refused meanwhile left a
 * socket in CLOSE-WAIT until about 1,000 of them had used up the DIR's file descriptors and its RPC port
 * stopped too. The DIR's sockets are counted in {@code /proc/PID/fd}.
 */
class StatusPortAbuseTest {
    /** StatusPageServer.Limits.DEFAULT's connection cap. */
    private static final int CONNECTIONS_MAX = 64;

    @Test
    void halfSentAndAbandonedStatusRequestsLeaveRpcAndStatusServedAndNoSocketBehind() throws Exception {
        try (TestCluster cluster = TestCluster.startProcesses(1);
                RpcClient rpc = new RpcClient("status-abuse-test")) {
            LocalCluster.ServerStatus dir = cluster.launcher().status().stream()
                    .filter(server -> server.name().equals("dir")).findFirst().orElseThrow();
            DirServiceClient dirRpc = new DirServiceClient(rpc, cluster.dirAddress(), 5_000);
            RpcClient.await(dirRpc.ping()); // its connection is part of the baseline
            long socketsBefore = sockets(dir.pid());

            List<Socket> halfSent = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                halfSent.add(sendAndHold(dir.statusPort(), "GET /status.json HTTP/1.1\r\nHost: dir\r\n"));
            }
            for (int i = 0; i < 1_000; i++) {
                sendAndHold(dir.statusPort(), "GET / HTTP/1.1\r\nHo").close();
            }
            RpcClient.await(dirRpc.ping());
            // A burst of 1,000 may briefly hold more than the cap until the server has read each one's close (such
            // a request is then answered 503); once it has, status is served while the two half-sent requests
            // stay open.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(dir.statusPort(),
                    "/status.json")).startsWith("HTTP/1.1 200 OK").contains("\"service\":\"dir\""));
            assertThat(halfSent).allMatch(socket -> !answered(socket)); // still open, still unanswered
            closeAll(halfSent);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(sockets(dir.pid()))
                    .as("the DIR's sockets after 1,002 half-sent status requests").isLessThanOrEqualTo(socketsBefore));

            // Past the cap, connections are answered 503 and closed at once; the RPC port does not notice.
            List<Socket> held = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS_MAX + 16; i++) {
                held.add(sendAndHold(dir.statusPort(), "GET / HTTP/1.1\r\n"));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> held.stream().filter(StatusPortAbuseTest::answered)
                    .count() == 16);
            for (Socket socket : held) {
                if (answered(socket)) {
                    assertThat(readUntilClosed(socket)).startsWith("HTTP/1.1 503 Service Unavailable");
                }
            }
            RpcClient.await(dirRpc.ping());
            closeAll(held);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(sockets(dir.pid()))
                    .isLessThanOrEqualTo(socketsBefore));
            assertThat(get(dir.statusPort(), "/")).startsWith("HTTP/1.1 200 OK");
        }
    }

    /** Sockets process {@code pid} has open: its descriptors that link to a socket. */
    private static long sockets(long pid) throws IOException {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return descriptors.filter(descriptor -> {
                try {
                    return Files.readSymbolicLink(descriptor).toString().startsWith("socket:");
                } catch (IOException closedMeanwhile) {
                    return false;
                }
            }).count();
        }
    }

    private static Socket sendAndHold(int port, String text) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    private static boolean answered(Socket socket) {
        try {
            return socket.getInputStream().available() > 0;
        } catch (IOException closed) {
            return true;
        }
    }

    private static String readUntilClosed(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }

    /** One GET on its own connection, closed afterwards. */
    private static String get(int port, String path) throws IOException {
        try (Socket socket = sendAndHold(port, "GET " + path + " HTTP/1.1\r\nHost: dir\r\nConnection: close\r\n\r\n")) {
            return readUntilClosed(socket);
        }
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
