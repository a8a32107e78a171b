package org.xtreemfs.foundation.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /} (the page supplier's text; HTML if it starts with {@code <}, else plain
 * text), {@code GET /status.json} (the map supplier as JSON) and {@code GET /metrics} (the
 * metrics registry in the Prometheus text format, written by the Prometheus client library so the
 * format is the library's, not ours), and further pages a service adds with {@link #route} (a chart page, its
 * script library from a WebJar). Suppliers and metric callbacks run on a small bounded
 * pool, so a slow page cannot pile up threads; requests beyond the pool's bounded queue are
 * dropped with a log line.
 *
 * <p>Administrative actions ({@link #handleLoopbackPost}) are {@code POST}s accepted only from a
 * loopback address: whoever can reach the port from the host itself already controls the server's
 * process, while a status port open to the network (the default bind address is 0.0.0.0) stays
 * read-only for everyone else (403).
 */
public final class StatusPageServer implements AutoCloseable {

    public static final String JSON_PATH = "/status.json";
    public static final String METRICS_PATH = "/metrics";

    private static final int HANDLER_THREAD_COUNT = 2;
    private static final int PENDING_REQUEST_MAX = 32;
    /** The largest body an administrative POST may carry: its actions take one short value. */
    static final int POST_BODY_BYTES_MAX = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(StatusPageServer.class);

    private final HttpServer server;
    private final ThreadPoolExecutor executor;
    private final Supplier<String> page;
    private final Supplier<Map<String, Object>> json;
    private final PrometheusRegistry metrics;
    private final Map<String, UnaryOperator<String>> loopbackPosts = new ConcurrentHashMap<>();
    private final PrometheusTextFormatWriter metricsWriter =
            ExpositionFormats.init().getPrometheusTextFormatWriter();
    /** Pages added by {@link #route}; read by the handler threads, so a concurrent map. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();

    /** A page added by the service: its content type (charset included for text) and its body. */
    private record Route(String contentType, Supplier<byte[]> body) {}

    /**
     * Binds and starts serving.
     *
     * @param address port 0 picks a free port; read it back with {@link #port()}
     * @param metrics scraped at each {@code GET /metrics}; its callbacks run on the handler threads
     * @throws IOException if the address cannot be bound
     */
    public StatusPageServer(InetSocketAddress address, Supplier<String> page,
            Supplier<Map<String, Object>> json, PrometheusRegistry metrics) throws IOException {
        this.page = page;
        this.json = json;
        this.metrics = metrics;
        this.server = HttpServer.create(address, 0);
        this.executor = new ThreadPoolExecutor(HANDLER_THREAD_COUNT, HANDLER_THREAD_COUNT, 0,
                TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(PENDING_REQUEST_MAX), runnable -> {
                    Thread thread = new Thread(runnable, "status-page");
                    thread.setDaemon(true);
                    return thread;
                }, (rejected, pool) -> rejectOverloaded(rejected));
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A server whose /metrics has no metrics (an empty text). */
    public StatusPageServer(InetSocketAddress address, Supplier<String> page,
            Supplier<Map<String, Object>> json) throws IOException {
        this(address, page, json, new PrometheusRegistry());
    }

    /** A server with only a text page; the JSON endpoint returns an empty object. */
    public StatusPageServer(InetSocketAddress address, Supplier<String> page) throws IOException {
        this(address, page, Map::of);
    }

    /**
     * Serves {@code GET path} with what {@code body} supplies at each request, as {@code contentType} (the full
     * header value, e.g. {@code "text/html; charset=utf-8"}). The three built-in paths cannot be replaced.
     *
     * @return this server, to chain further routes
     */
    public StatusPageServer route(String path, String contentType, Supplier<byte[]> body) {
        if (!path.startsWith("/") || "/".equals(path) || JSON_PATH.equals(path) || METRICS_PATH.equals(path)) {
            throw new IllegalArgumentException("a route needs a path of its own starting with /, got \"" + path
                    + "\"");
        }
        routes.put(path, new Route(contentType, body));
        return this;
    }

    /**
     * The bytes of a class path resource, read at each call (so a {@link #route} serving a file shipped in a jar,
     * such as a WebJar's script, reads it once at start and serves those bytes).
     *
     * @throws IllegalStateException naming the resource when the class path lacks it (a packaging mistake, so
     *     the service fails at start rather than at the first request)
     */
    public static byte[] classPathResource(String name) {
        try (InputStream in = StatusPageServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("class path resource missing: " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("class path resource unreadable: " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Serves {@code POST path} from loopback clients only: {@code action} gets the request body (UTF-8,
     * trimmed, at most {@value #POST_BODY_BYTES_MAX} bytes) and returns the response text (200); an
     * IllegalArgumentException it throws is the client's error (400 with its message, no stack trace).
     */
    public void handleLoopbackPost(String path, UnaryOperator<String> action) {
        if (loopbackPosts.putIfAbsent(path, action) != null) {
            throw new IllegalArgumentException("POST " + path + " is handled already");
        }
    }

    /** The bound port, also when 0 was requested. */
    public int port() {
        return server.getAddress().getPort();
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Stops listening at once; in-flight requests get no more than one second. */
    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            if ("POST".equals(exchange.getRequestMethod()) && loopbackPosts.containsKey(path)) {
                post(exchange, loopbackPosts.get(path));
            } else if (!"GET".equals(exchange.getRequestMethod())
                    && !"HEAD".equals(exchange.getRequestMethod())) {
                respond(exchange, 405, "text/plain", "only GET is supported here\n");
            } else if ("/".equals(path)) {
                String body = page.get();
                String type = body.stripLeading().startsWith("<") ? "text/html" : "text/plain";
                respond(exchange, 200, type, body);
            } else if (JSON_PATH.equals(path)) {
                respond(exchange, 200, "application/json", JsonWriter.write(json.get()));
            } else if (METRICS_PATH.equals(path)) {
                ByteArrayOutputStream text = new ByteArrayOutputStream();
                metricsWriter.write(text, metrics.scrape());
                respond(exchange, 200, metricsWriter.getContentType(), text.toByteArray());
            } else if (routes.containsKey(path)) {
                Route route = routes.get(path); // never removed, so still there
                respond(exchange, 200, route.contentType(), route.body().get());
            } else {
                respond(exchange, 404, "text/plain", "no such page: " + path + "\n");
            }
        } catch (RuntimeException e) {
            LOG.warn("status page request failed", e);
            respond(exchange, 500, "text/plain", "status page failed: " + e + "\n");
        } finally {
            exchange.close();
        }
    }

    /** Whether an administrative POST from {@code client} is served: from a loopback address only. */
    static boolean acceptsAdministrationFrom(java.net.InetAddress client) {
        return client.isLoopbackAddress();
    }

    private static void post(HttpExchange exchange, UnaryOperator<String> action) throws IOException {
        if (!acceptsAdministrationFrom(exchange.getRemoteAddress().getAddress())) {
            respond(exchange, 403, "text/plain", "administrative requests are accepted from this host only, not from "
                    + exchange.getRemoteAddress().getAddress().getHostAddress() + "\n");
            return;
        }
        byte[] body = exchange.getRequestBody().readNBytes(POST_BODY_BYTES_MAX + 1);
        if (body.length > POST_BODY_BYTES_MAX) {
            respond(exchange, 413, "text/plain", "the body is longer than " + POST_BODY_BYTES_MAX + " bytes\n");
            return;
        }
        String answer;
        try {
            answer = action.apply(new String(body, StandardCharsets.UTF_8).trim());
        } catch (IllegalArgumentException e) {
            respond(exchange, 400, "text/plain", e.getMessage() + "\n");
            return;
        }
        respond(exchange, 200, "text/plain", answer.endsWith("\n") ? answer : answer + "\n");
    }

    private static void respond(HttpExchange exchange, int status, String type, String body)
            throws IOException {
        respond(exchange, status, type + "; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    /** @param contentType the full header value, charset included */
    private static void respond(HttpExchange exchange, int status, String contentType, byte[] bytes)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /**
     * The JDK server hands each exchange to the executor as a Runnable it does not expose, so an
     * overloaded pool can only drop it; the client sees the connection close.
     */
    private static void rejectOverloaded(Runnable rejected) {
        LOG.warn("status page overloaded: more than {} pending requests", PENDING_REQUEST_MAX);
    }
}
