package org.xtreemfs.foundation.status;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.WriteTimeoutException;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /} (the page supplier's text; HTML if it starts with {@code <}, else plain
 * text), {@code GET /status.json} (the map supplier as JSON) and {@code GET /metrics} (the
 * metrics registry in the Prometheus text format, written by the Prometheus client library so the
 * format is the library's, not ours), and further pages a service adds with {@link #route} (a chart page, its
 * script library from a WebJar).
 *
 * <p>HTTP is Netty's codec on event loops of this server's own (one accepting thread, one I/O thread), never
 * the RPC server's, and suppliers and metric callbacks run on a small bounded pool of its own. What a client
 * can hold on the status port is bounded by {@link Limits}: at most {@code connectionsMax} open connections
 * (one more is answered 503 and closed at once), a request must arrive whole within {@code requestTimeoutMs}
 * of the connection being ready for it (a slowloris client or an idle keep-alive connection is closed), a
 * response must be taken within {@code responseTimeoutMs}, and each connection has at most one request in
 * progress (the next one is not read before the answer is written). A request the busy pool cannot queue is
 * answered 503. So nothing on the status port can take the process's file descriptors or threads from the
 * RPC port.
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
    /** Larger bodies are refused by the codec (413) before they are buffered; smaller ones reach the routes. */
    private static final int BODY_BYTES_BUFFERED_MAX = 64 * 1024;
    private static final int REQUEST_LINE_BYTES_MAX = 4096;
    private static final int HEADER_BYTES_MAX = 8192;
    private static final Logger LOG = LoggerFactory.getLogger(StatusPageServer.class);

    private final Limits limits;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final Channel serverChannel;
    private final ThreadPoolExecutor executor;
    private final Supplier<String> page;
    private final Supplier<Map<String, Object>> json;
    private final PrometheusRegistry metrics;
    private final Map<String, UnaryOperator<String>> loopbackPosts = new ConcurrentHashMap<>();
    private final PrometheusTextFormatWriter metricsWriter =
            ExpositionFormats.init().getPrometheusTextFormatWriter();
    /** Pages added by {@link #route}; read by the handler threads, so a concurrent map. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private final AtomicInteger openConnections = new AtomicInteger();
    private final AtomicLong refusedConnections = new AtomicLong();
    private final AtomicLong timedOutConnections = new AtomicLong();

    /** A page added by the service: its content type (charset included for text) and its body. */
    private record Route(String contentType, Supplier<byte[]> body) {}

    /**
     * What one status server lets its clients hold.
     *
     * @param connectionsMax open connections at once; one more is answered 503 and closed
     * @param requestTimeoutMs from the moment a connection is ready for a request (opened, or its previous
     *     answer written) until that request has arrived whole; past it the connection is closed
     * @param responseTimeoutMs how long writing one answer may take (a client that does not read)
     */
    public record Limits(int connectionsMax, long requestTimeoutMs, long responseTimeoutMs) {
        /**
         * 64 connections, 10 s per request and per answer: a browser keeps about 6 connections per host and a
         * scraper one, and a request on a live network arrives in well under a second.
         */
        public static final Limits DEFAULT = new Limits(64, 10_000, 10_000);

        public Limits {
            if (connectionsMax < 1 || requestTimeoutMs < 1 || responseTimeoutMs < 1) {
                throw new IllegalArgumentException("status server limits must be positive, were connectionsMax "
                        + connectionsMax + ", requestTimeoutMs " + requestTimeoutMs + ", responseTimeoutMs "
                        + responseTimeoutMs);
            }
        }
    }

    /**
     * Binds and starts serving.
     *
     * @param address port 0 picks a free port; read it back with {@link #port()}
     * @param metrics scraped at each {@code GET /metrics}; its callbacks run on the handler threads
     * @throws IOException naming the address if it cannot be bound (a port in use, an address not of this host)
     */
    public StatusPageServer(InetSocketAddress address, Supplier<String> page,
            Supplier<Map<String, Object>> json, PrometheusRegistry metrics, Limits limits) throws IOException {
        this.page = page;
        this.json = json;
        this.metrics = metrics;
        this.limits = limits;
        this.executor = new ThreadPoolExecutor(HANDLER_THREAD_COUNT, HANDLER_THREAD_COUNT, 0,
                TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(PENDING_REQUEST_MAX),
                new DefaultThreadFactory("status-page", true));
        this.acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("status-accept", true));
        this.ioGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("status-net", true));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptGroup, ioGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                // Requests are read one at a time, on demand (see Exchange).
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        admit(channel);
                    }
                });
        try {
            this.serverChannel = bootstrap.bind(address).sync().channel();
        } catch (Exception e) { // Netty rethrows the bind's checked exception undeclared
            shutdown();
            throw new IOException("status page cannot listen on " + address.getHostString() + ":" + address.getPort()
                    + ": " + e.getMessage(), e);
        }
    }

    /** With {@link Limits#DEFAULT}. */
    public StatusPageServer(InetSocketAddress address, Supplier<String> page,
            Supplier<Map<String, Object>> json, PrometheusRegistry metrics) throws IOException {
        this(address, page, json, metrics, Limits.DEFAULT);
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
        return address().getPort();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Connections open now, refused ones included until they are closed. */
    public int openConnections() {
        return openConnections.get();
    }

    /** Connections answered 503 and closed because {@link Limits#connectionsMax} were open, since start. */
    public long refusedConnections() {
        return refusedConnections.get();
    }

    /** Connections closed because a request or an answer took longer than its timeout, since start. */
    public long timedOutConnections() {
        return timedOutConnections.get();
    }

    /** Stops listening and closes every connection at once; a request in progress gets no more than one second. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly();
        shutdown();
    }

    private void shutdown() {
        acceptGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        ioGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        executor.shutdownNow();
    }

    /** Sets up a new connection's pipeline, or refuses it when the cap is reached; runs on its event loop. */
    private void admit(SocketChannel channel) {
        int open = openConnections.incrementAndGet();
        channel.closeFuture().addListener(closed -> openConnections.decrementAndGet());
        if (open > limits.connectionsMax()) {
            refusedConnections.incrementAndGet();
            LOG.warn("status page: refusing a connection from {}: {} connections open already",
                    channel.remoteAddress(), limits.connectionsMax());
            // Raw bytes: this pipeline has no HTTP encoder. The request, if any, is never read.
            String refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    + "Connection: close\r\nContent-Length: 0\r\n\r\n";
            channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext context) {
                    context.writeAndFlush(Unpooled.copiedBuffer(refusal, StandardCharsets.US_ASCII))
                            .addListener(ChannelFutureListener.CLOSE);
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                    context.close();
                }
            });
            return;
        }
        channel.pipeline()
                .addLast("writeTimeout", new WriteTimeoutHandler(limits.responseTimeoutMs(), TimeUnit.MILLISECONDS))
                .addLast("http", new HttpServerCodec(REQUEST_LINE_BYTES_MAX, HEADER_BYTES_MAX, 8192))
                .addLast("aggregator", new HttpObjectAggregator(BODY_BYTES_BUFFERED_MAX))
                .addLast("exchange", new Exchange());
    }

    /**
     * One connection's requests, one at a time: it asks the channel for a request ({@code read()}), arms the
     * request deadline, hands the whole request to the pool, writes the answer and only then asks for the next.
     * Requests that one read delivered beyond the first (HTTP pipelining) wait in a queue of at most
     * {@value #PIPELINED_REQUESTS_MAX}; a client sending more is closed. Runs on the connection's event loop,
     * except the answer, which the pool computes.
     */
    private final class Exchange extends SimpleChannelInboundHandler<FullHttpRequest> {
        private static final int PIPELINED_REQUESTS_MAX = 8;
        private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
        private ScheduledFuture<?> requestDeadline;
        private boolean answering;

        Exchange() {
            super(false); // released by answer(), on the pool, or when the connection closes while waiting
        }

        @Override
        public void channelActive(ChannelHandlerContext context) {
            awaitRequest(context);
            context.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext context) {
            disarm();
            waiting.forEach(FullHttpRequest::release);
            waiting.clear();
            context.fireChannelInactive();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request) {
            disarm();
            if (!answering) {
                begin(context, request);
            } else if (waiting.size() < PIPELINED_REQUESTS_MAX) {
                waiting.add(request);
            } else {
                request.release();
                LOG.warn("status page: closing the connection from {}: more than {} requests sent ahead",
                        context.channel().remoteAddress(), PIPELINED_REQUESTS_MAX);
                context.close();
            }
        }

        private void begin(ChannelHandlerContext context, FullHttpRequest request) {
            answering = true;
            if (request.decoderResult().isFailure()) {
                request.release();
                send(context, false, text(HttpResponseStatus.BAD_REQUEST,
                        "malformed request: " + request.decoderResult().cause().getMessage() + "\n"));
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            InetAddress client = ((InetSocketAddress) context.channel().remoteAddress()).getAddress();
            try {
                executor.execute(() -> send(context, keepAlive, answer(request, client)));
            } catch (RejectedExecutionException e) {
                request.release();
                LOG.warn("status page overloaded: more than {} pending requests", PENDING_REQUEST_MAX);
                send(context, false, text(HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "the status server is busy; try again\n"));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            if (cause instanceof WriteTimeoutException) {
                timedOutConnections.incrementAndGet();
                LOG.info("status page: closing the connection from {}: it took no answer for {} ms",
                        context.channel().remoteAddress(), limits.responseTimeoutMs());
            } else if (cause instanceof IOException) {
                LOG.debug("status page connection from {} failed", context.channel().remoteAddress(), cause);
            } else {
                LOG.warn("status page connection from {} failed", context.channel().remoteAddress(), cause);
            }
            context.close();
        }

        /** Writes the answer, then takes the next request or closes; any thread. */
        private void send(ChannelHandlerContext context, boolean keepAlive, FullHttpResponse response) {
            response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            if (!keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            context.writeAndFlush(response).addListener((ChannelFutureListener) written -> {
                // Listeners run on the event loop.
                answering = false;
                if (!keepAlive || !written.isSuccess()) {
                    written.channel().close();
                } else if (!waiting.isEmpty()) {
                    begin(context, waiting.poll());
                } else {
                    awaitRequest(context);
                }
            });
        }

        /** On the event loop: reads until one request is whole, or closes the connection at the deadline. */
        private void awaitRequest(ChannelHandlerContext context) {
            requestDeadline = context.executor().schedule(() -> {
                timedOutConnections.incrementAndGet();
                LOG.info("status page: closing the connection from {}: no whole request within {} ms",
                        context.channel().remoteAddress(), limits.requestTimeoutMs());
                context.close();
            }, limits.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            context.read();
        }

        private void disarm() {
            if (requestDeadline != null) {
                requestDeadline.cancel(false);
                requestDeadline = null;
            }
        }
    }

    /** The answer to one whole request; runs on the pool and releases the request. */
    private FullHttpResponse answer(FullHttpRequest request, InetAddress client) {
        try {
            HttpMethod method = request.method();
            String path = new QueryStringDecoder(request.uri()).path();
            FullHttpResponse response;
            if (HttpMethod.POST.equals(method) && loopbackPosts.containsKey(path)) {
                response = post(request, client, loopbackPosts.get(path));
            } else if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method)) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET is supported here\n");
            } else if ("/".equals(path)) {
                String body = page.get();
                String type = body.stripLeading().startsWith("<") ? "text/html" : "text/plain";
                response = bytes(HttpResponseStatus.OK, type + "; charset=utf-8", utf8(body));
            } else if (JSON_PATH.equals(path)) {
                response = bytes(HttpResponseStatus.OK, "application/json; charset=utf-8",
                        utf8(JsonWriter.write(json.get())));
            } else if (METRICS_PATH.equals(path)) {
                ByteArrayOutputStream text = new ByteArrayOutputStream();
                metricsWriter.write(text, metrics.scrape());
                response = bytes(HttpResponseStatus.OK, metricsWriter.getContentType(), text.toByteArray());
            } else if (routes.containsKey(path)) {
                Route route = routes.get(path); // never removed, so still there
                response = bytes(HttpResponseStatus.OK, route.contentType(), route.body().get());
            } else {
                response = text(HttpResponseStatus.NOT_FOUND, "no such page: " + path + "\n");
            }
            if (HttpMethod.HEAD.equals(method)) {
                response.content().clear(); // Content-Length stays that of the GET
            }
            return response;
        } catch (IOException | RuntimeException e) {
            LOG.warn("status page request failed", e);
            return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "status page failed: " + e + "\n");
        } finally {
            request.release();
        }
    }

    /** Whether an administrative POST from {@code client} is served: from a loopback address only. */
    static boolean acceptsAdministrationFrom(InetAddress client) {
        return client.isLoopbackAddress();
    }

    private static FullHttpResponse post(FullHttpRequest request, InetAddress client, UnaryOperator<String> action) {
        if (!acceptsAdministrationFrom(client)) {
            return text(HttpResponseStatus.FORBIDDEN, "administrative requests are accepted from this host only, "
                    + "not from " + client.getHostAddress() + "\n");
        }
        if (request.content().readableBytes() > POST_BODY_BYTES_MAX) {
            return text(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    "the body is longer than " + POST_BODY_BYTES_MAX + " bytes\n");
        }
        String answer;
        try {
            answer = action.apply(request.content().toString(StandardCharsets.UTF_8).trim());
        } catch (IllegalArgumentException e) {
            return text(HttpResponseStatus.BAD_REQUEST, e.getMessage() + "\n");
        }
        return text(HttpResponseStatus.OK, answer.endsWith("\n") ? answer : answer + "\n");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        return bytes(status, "text/plain; charset=utf-8", utf8(body));
    }

    /** @param contentType the full header value, charset included */
    private static FullHttpResponse bytes(HttpResponseStatus status, String contentType, byte[] body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        HttpUtil.setContentLength(response, body.length);
        return response;
    }
}
