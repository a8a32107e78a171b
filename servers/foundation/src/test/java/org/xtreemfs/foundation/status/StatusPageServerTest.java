package org.xtreemfs.foundation.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.stage.StageMetrics;

class StatusPageServerTest {

    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(StatusPageServer server, String path)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + server.port() + path);
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static InetSocketAddress ephemeralLoopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Test
    void servesPageAndJsonOnAnEphemeralPort() throws Exception {
        // Proves port 0 binds a real port and both endpoints return the suppliers' current values.
        AtomicInteger requests = new AtomicInteger();
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("service", "osd");
        facts.put("load", 0.25);
        facts.put("stages", List.of(new TreeMap<>(Map.of("name", "storage", "queueLength", 3))));
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(),
                () -> "<html><body>requests " + requests.incrementAndGet() + "</body></html>",
                () -> facts)) {
            assertThat(server.port()).isPositive();
            HttpResponse<String> page = get(server, "/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type"))
                    .hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("requests 1");
            HttpResponse<String> json = get(server, "/status.json");
            assertThat(json.statusCode()).isEqualTo(200);
            assertThat(json.body()).isEqualTo("{\"service\":\"osd\",\"load\":0.25,"
                    + "\"stages\":[{\"name\":\"storage\",\"queueLength\":3}]}");
            assertThat(get(server, "/nothing").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void metricsPathServesTheRegistryInPrometheusTextFormat() throws Exception {
        // The callback's value changes between scrapes: proves /metrics scrapes at each request.
        AtomicInteger scrapes = new AtomicInteger();
        PrometheusRegistry registry = new PrometheusRegistry();
        GaugeWithCallback.builder().name("xtreemfs_test_queue_depth_requests").help("test gauge")
                .labelNames("volume")
                .callback(callback -> callback.call(scrapes.incrementAndGet(), "vol-a"))
                .register(registry);
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page",
                Map::of, registry)) {
            HttpResponse<String> first = get(server, "/metrics");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
            assertThat(first.body()).contains("# TYPE xtreemfs_test_queue_depth_requests gauge")
                    .contains("xtreemfs_test_queue_depth_requests{volume=\"vol-a\"} 1.0");
            assertThat(get(server, "/metrics").body())
                    .contains("xtreemfs_test_queue_depth_requests{volume=\"vol-a\"} 2.0");
        }
        try (StatusPageServer plain = new StatusPageServer(ephemeralLoopback(), () -> "page")) {
            HttpResponse<String> empty = get(plain, "/metrics");
            assertThat(empty.statusCode()).isEqualTo(200);
            assertThat(empty.body()).isEmpty();
        }
    }

    @Test
    void addedRoutesServeTheirBodyAtEachRequestAndCannotReplaceTheBuiltInPaths() throws Exception {
        // The body supplier runs per request (the counter changes), with the route's own content type.
        AtomicInteger requests = new AtomicInteger();
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page", Map::of)) {
            server.route("/chart", "text/html; charset=utf-8", () -> "<p>chart</p>".getBytes())
                    .route("/chart/data.json", "application/json; charset=utf-8",
                            () -> ("{\"polls\":" + requests.incrementAndGet() + "}").getBytes());
            HttpResponse<String> page = get(server, "/chart");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).isEqualTo("<p>chart</p>");
            assertThat(get(server, "/chart/data.json").body()).isEqualTo("{\"polls\":1}");
            HttpResponse<String> data = get(server, "/chart/data.json");
            assertThat(data.body()).isEqualTo("{\"polls\":2}");
            assertThat(data.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
            assertThat(get(server, "/chart/other").statusCode()).isEqualTo(404);
            for (String taken : List.of("/", "/status.json", "/metrics", "relative")) {
                assertThatThrownBy(() -> server.route(taken, "text/plain", "x"::getBytes))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"" + taken + "\"");
            }
            assertThat(get(server, "/").body()).isEqualTo("page");
        }
    }

    @Test
    void aMissingClassPathResourceIsNamed() {
        assertThat(new String(StatusPageServer.classPathResource(
                "org/xtreemfs/foundation/status/StatusPageServer.class"), java.nio.charset.StandardCharsets.ISO_8859_1))
                .startsWith("\u00ca\u00fe\u00ba\u00be"); // a class file's magic number 0xCAFEBABE
        assertThatThrownBy(() -> StatusPageServer.classPathResource("no/such/file.js"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no/such/file.js");
    }

    @Test
    void failingSupplierGives500AndServerKeepsServing() throws Exception {
        // Proves an exception in the page supplier only fails that request.
        AtomicInteger calls = new AtomicInteger();
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("boom");
            }
            return "plain text";
        })) {
            HttpResponse<String> failed = get(server, "/");
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(failed.body()).contains("boom");
            HttpResponse<String> ok = get(server, "/");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("Content-Type"))
                    .hasValue("text/plain; charset=utf-8");
            assertThat(get(server, "/status.json").body()).isEqualTo("{}");
        }
    }

    private HttpResponse<String> post(StatusPageServer server, String path, String body)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + server.port() + path);
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void loopbackPostRunsItsActionAndReportsBadValuesAsClientErrors() throws Exception {
        // Proves an administrative POST reaches its action with the trimmed body, an IllegalArgumentException
        // becomes a 400 naming the value, other paths stay read-only (405) and oversized bodies are refused.
        List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page")) {
            server.handleLoopbackPost("/knob", body -> {
                if (!body.matches("\\d+")) {
                    throw new IllegalArgumentException("knob takes a number, not '" + body + "'");
                }
                received.add(body);
                return "knob set to " + body;
            });
            HttpResponse<String> ok = post(server, "/knob", " 7\n");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("knob set to 7\n");
            HttpResponse<String> bad = post(server, "/knob", "seven");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).isEqualTo("knob takes a number, not 'seven'\n");
            assertThat(post(server, "/", "7").statusCode()).isEqualTo(405);
            assertThat(post(server, "/knob", "1".repeat(StatusPageServer.POST_BODY_BYTES_MAX + 1)).statusCode())
                    .isEqualTo(413);
            assertThat(received).containsExactly("7");
            assertThat(get(server, "/").body()).isEqualTo("page");
        }
    }

    @Test
    void administrativePostsAreAcceptedFromLoopbackAddressesOnly() throws Exception {
        // Proves the rule that keeps a status port open to the network read-only for other hosts.
        assertThat(StatusPageServer.acceptsAdministrationFrom(InetAddress.getByName("127.0.0.1"))).isTrue();
        assertThat(StatusPageServer.acceptsAdministrationFrom(InetAddress.getByName("::1"))).isTrue();
        assertThat(StatusPageServer.acceptsAdministrationFrom(InetAddress.getByName("192.0.2.10"))).isFalse();
        assertThat(StatusPageServer.acceptsAdministrationFrom(InetAddress.getByName("0.0.0.0"))).isFalse();
    }

    @Test
    void aPathIsHandledByOneActionOnly() throws Exception {
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page")) {
            server.handleLoopbackPost("/knob", body -> body);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> server.handleLoopbackPost("/knob", body -> body))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/knob");
        }
    }

    /** Sockets this process has open now (client and server ends alike): the entries of /proc/self/fd that are. */
    static long openSockets() throws IOException {
        try (java.util.stream.Stream<java.nio.file.Path> descriptors = java.nio.file.Files.list(
                java.nio.file.Path.of("/proc/self/fd"))) {
            return descriptors.filter(descriptor -> {
                try {
                    return java.nio.file.Files.readSymbolicLink(descriptor).toString().startsWith("socket:");
                } catch (IOException vanished) { // the listing's own descriptor, closed meanwhile
                    return false;
                }
            }).count();
        }
    }

    /** One raw connection that sends {@code text} and stays open: the client half of a half-sent request. */
    private static java.net.Socket sendAndHold(StatusPageServer server, String text) throws IOException {
        java.net.Socket socket = new java.net.Socket(InetAddress.getLoopbackAddress(), server.port());
        socket.getOutputStream().write(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /** Reads what the server sends until it closes the connection (or the timeout ends the test). */
    private static String readUntilClosed(java.net.Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** A GET on a fresh raw connection, closed afterwards, so it leaves no socket behind in this process. */
    private static String rawGet(StatusPageServer server, String path) throws IOException {
        try (java.net.Socket socket = sendAndHold(server, "GET " + path + " HTTP/1.1\r\nHost: test\r\n"
                + "Connection: close\r\n\r\n")) {
            return readUntilClosed(socket);
        }
    }

    @Test
    void halfSentAndSlowRequestsAreClosedAtTheirDeadlineWhileOthersAreServedAndNoSocketIsLeft() throws Exception {
        // The attack: two connections that send half a request held the JDK server's two handler threads
        // for as long as they stayed open, and the requests refused meanwhile were left in CLOSE-WAIT. Here both
        // half-sent requests and a slowloris client (one byte every 50 ms, never finishing) are closed at the
        // request deadline, a GET meanwhile is answered at once, and 200 connections that send half a request
        // and go away leave no socket behind.
        StatusPageServer.Limits limits = new StatusPageServer.Limits(256, 700, 2_000);
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page", Map::of,
                new PrometheusRegistry(), limits)) {
            long socketsBefore = openSockets();
            long startNanos = System.nanoTime(); // before the first connection: its deadline starts later
            java.net.Socket halfSentA = sendAndHold(server, "GET / HTTP/1.1\r\nHost: te");
            java.net.Socket halfSentB = sendAndHold(server, "POST /knob HTTP/1.1\r\nContent-Length: 100\r\n\r\n1");
            java.net.Socket slow = sendAndHold(server, "G");
            java.util.concurrent.atomic.AtomicBoolean slowClosedByServer = new java.util.concurrent.atomic.AtomicBoolean();
            Thread slowloris = new Thread(() -> {
                try {
                    for (int i = 0; i < 200; i++) { // 10 s at most
                        slow.getOutputStream().write('E');
                        slow.getOutputStream().flush();
                        Thread.sleep(50);
                    }
                } catch (IOException closed) {
                    slowClosedByServer.set(true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "slowloris");
            slowloris.start();
            assertThat(rawGet(server, "/")).startsWith("HTTP/1.1 200 OK").endsWith("page");
            assertThat(System.nanoTime() - startNanos).as("a GET beside the attack waits for nothing")
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(limits.requestTimeoutMs()));
            for (int i = 0; i < 200; i++) {
                sendAndHold(server, "GET /status.json HTTP/1.1\r\nHo").close();
            }
            assertThat(readUntilClosed(halfSentA)).as("closed without an answer").isEmpty();
            assertThat(readUntilClosed(halfSentB)).isEmpty();
            assertThat(System.nanoTime() - startNanos).isGreaterThanOrEqualTo(
                    TimeUnit.MILLISECONDS.toNanos(limits.requestTimeoutMs()));
            slowloris.join(10_000);
            assertThat(slowClosedByServer).as("the slowloris connection was closed by the server").isTrue();
            assertThat(server.timedOutConnections()).isGreaterThanOrEqualTo(3);
            halfSentA.close();
            halfSentB.close();
            slow.close();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(server.openConnections()).isZero();
                assertThat(openSockets()).as("sockets of this process, server and client ends")
                        .isEqualTo(socketsBefore);
            });
            assertThat(rawGet(server, "/status.json")).startsWith("HTTP/1.1 200 OK").endsWith("{}");
        }
    }

    @Test
    void aConnectionOverTheLimitIsAnswered503AndClosedAndTheNextOneAfterIsServed() throws Exception {
        StatusPageServer.Limits limits = new StatusPageServer.Limits(4, 10_000, 10_000);
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(), () -> "page", Map::of,
                new PrometheusRegistry(), limits)) {
            long socketsBefore = openSockets();
            List<java.net.Socket> held = new java.util.ArrayList<>();
            for (int i = 0; i < limits.connectionsMax(); i++) {
                held.add(sendAndHold(server, "GET / HTTP/1.1\r\n"));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> server.openConnections() == limits.connectionsMax());
            assertThat(rawGet(server, "/")).startsWith("HTTP/1.1 503 Service Unavailable\r\n")
                    .contains("Connection: close\r\n");
            assertThat(server.refusedConnections()).isEqualTo(1);
            held.remove(0).close();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> server.openConnections() < limits.connectionsMax());
            assertThat(rawGet(server, "/")).startsWith("HTTP/1.1 200 OK");
            for (java.net.Socket socket : held) {
                socket.close();
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(openSockets()).isEqualTo(socketsBefore));
        }
    }

    @Test
    void keptAliveConnectionsServeRequestsInOrderAndHeadHasNoBody() throws Exception {
        // Two requests sent at once on one connection (pipelined) are answered one after the other, in order.
        AtomicInteger requests = new AtomicInteger();
        try (StatusPageServer server = new StatusPageServer(ephemeralLoopback(),
                () -> "page " + requests.incrementAndGet());
                java.net.Socket socket = sendAndHold(server, "GET / HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "HEAD / HTTP/1.1\r\nHost: t\r\n\r\nGET /nothing HTTP/1.1\r\nHost: t\r\n"
                        + "Connection: close\r\n\r\n")) {
            String answers = readUntilClosed(socket);
            assertThat(answers).startsWith("HTTP/1.1 200 OK").contains("page 1HTTP/1.1 200 OK")
                    .contains("content-length: 6\r\n").doesNotContain("page 2")
                    .contains("HTTP/1.1 404 Not Found").endsWith("no such page: /nothing\n");
        }
    }

    @Test
    void aTakenPortIsNamed() throws Exception {
        try (StatusPageServer first = new StatusPageServer(ephemeralLoopback(), () -> "page")) {
            assertThatThrownBy(() -> new StatusPageServer(first.address(), () -> "page"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("status page cannot listen on")
                    .hasMessageContaining(":" + first.port())
                    .hasMessageContaining("in use");
        }
    }

    @Test
    void jsonWriterEscapesAndHandlesSpecialValues() {
        // Proves escaping, nulls, enums, arrays, records and non-finite numbers give valid JSON.
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("text", "a\"b\\c\n\u0001");
        value.put("missing", null);
        value.put("nan", Double.NaN);
        value.put("unit", java.util.concurrent.TimeUnit.SECONDS);
        value.put("array", new Object[] {1L, true});
        value.put("stage", new StageMetrics("storage", 1, 2, 3, 4L, 5L, 6L, 0.5));
        assertThat(JsonWriter.write(value)).isEqualTo("{\"text\":\"a\\\"b\\\\c\\n\\u0001\","
                + "\"missing\":null,\"nan\":null,\"unit\":\"SECONDS\",\"array\":[1,true],"
                + "\"stage\":{\"stageName\":\"storage\",\"queueLength\":1,\"queueCapacity\":2,"
                + "\"workerThreadCount\":3,\"handledCount\":4,\"failedCount\":5,"
                + "\"rejectedCount\":6,\"busyFraction\":0.5,\"errorCount\":0,\"lastError\":\"\"}}");
    }
}
