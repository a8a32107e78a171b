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
