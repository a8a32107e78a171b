package org.xtreemfs.foundation.rpc;

import org.xtreemfs.foundation.address.RpcScheme;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.MessageType;
import org.xtreemfs.interfaces.rpc.RequestHeader;
import org.xtreemfs.interfaces.rpc.RpcHeader;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Calls remote procedures. One connection per server address and scheme, shared by all calls and re-established on
 * the next call after it closes. Invariant: every returned future completes exactly once, at the latest
 * when the call's timeout expires.
 *
 * <p>TLS or plain TCP is chosen per server: a {@link ServiceAddress} (what UUID resolution and URLs with a scheme
 * give) is spoken by its scheme; a plain {@link InetSocketAddress} by this client's default, TLS when it was given a
 * TLS configuration, else plain TCP. A TLS server called by a client without a TLS configuration fails at once with
 * AUTH_FAILED naming the server and why.
 */
public final class RpcClient implements AutoCloseable {
    private final String name;
    private final FrameLimits frameLimits;
    private final int connectTimeoutMs;
    private final RpcTls tls;
    private final EventLoopGroup group;
    private final AtomicLong nextCallId = new AtomicLong(1);
    private final Map<Target, Connection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** How long opening a connection may take unless a client says otherwise. */
    public static final int CONNECT_TIMEOUT_MS_DEFAULT = 5_000;

    public RpcClient(String name) {
        this(name, FrameLimits.DEFAULT, CONNECT_TIMEOUT_MS_DEFAULT);
    }

    public RpcClient(String name, FrameLimits frameLimits, int connectTimeoutMs) {
        this(name, frameLimits, connectTimeoutMs, null);
    }

    /**
     * A client that can speak TLS ({@link RpcTls#client}): to servers whose scheme is pbrpcs, and to plain socket
     * addresses; null: no TLS configuration, plain TCP only.
     */
    public RpcClient(String name, FrameLimits frameLimits, int connectTimeoutMs, RpcTls tls) {
        this.tls = tls;
        this.name = name;
        this.frameLimits = frameLimits;
        this.connectTimeoutMs = connectTimeoutMs;
        this.group = new NioEventLoopGroup(2, new DefaultThreadFactory(name + "-rpc-client", true));
    }

    /**
     * Sends a request. {@code data} (may be null) is released by the transport. The future fails with an
     * {@link RpcException} (the server's error) or an {@link RpcTransportException} (no answer).
     */
    public CompletableFuture<RpcResponse> call(InetSocketAddress address, int interfaceId, int procedureId,
            UserCredentials credentials, MessageLite request, ByteBuf data, long timeoutMs) {
        return call(address, interfaceId, procedureId, credentials, request, data, timeoutMs, "", 0);
    }

    /**
     * As above, for a request the server applies exactly once (rpc.proto, RequestHeader.client_id): every
     * attempt of one request carries the same {@code clientId} and {@code requestNumber} (0: none).
     */
    public CompletableFuture<RpcResponse> call(InetSocketAddress address, int interfaceId, int procedureId,
            UserCredentials credentials, MessageLite request, ByteBuf data, long timeoutMs, String clientId,
            long requestNumber) {
        CompletableFuture<RpcResponse> result = new CompletableFuture<>();
        if (closed) {
            RpcRecord.releaseQuietly(data);
            result.completeExceptionally(new RpcTransportException(name + ": client is closed", false));
            return result;
        }
        long callId = nextCallId.getAndIncrement();
        RpcHeader header = RpcHeader.newBuilder()
                .setCallId(callId)
                .setMessageType(MessageType.REQUEST)
                .setRequestHeader(RequestHeader.newBuilder()
                        .setInterfaceId(interfaceId)
                        .setProcedureId(procedureId)
                        .setUserCredentials(credentials == null ? UserCredentials.getDefaultInstance() : credentials)
                        .setTimeoutMs((int) Math.min(Integer.MAX_VALUE, timeoutMs))
                        .setClientId(requestNumber == 0 ? "" : clientId)
                        .setRequestNumber(requestNumber))
                .build();
        Target target = new Target(schemeOf(address), address);
        if (target.scheme().tls() && tls == null) {
            RpcRecord.releaseQuietly(data);
            result.completeExceptionally(RpcException.authFailed(name + ": the server at " + address + " speaks TLS ("
                    + target.scheme().schemeName() + ") but this client has no TLS configuration; give it the"
                    + " cluster's CA (--tls-ca, or *.tls.authorityFile for a server)"));
            return result;
        }
        Connection connection = connections.computeIfAbsent(target, Connection::new);
        connection.send(callId, header, request, data, result, timeoutMs);
        return result;
    }

    /** Calls a procedure without data segments and parses its response message. */
    public <T> CompletableFuture<T> callParsed(InetSocketAddress address, int interfaceId, int procedureId,
            UserCredentials credentials, MessageLite request, Parser<T> responseParser, long timeoutMs) {
        return callParsed(address, interfaceId, procedureId, credentials, request, responseParser, timeoutMs, "", 0);
    }

    /** As above, applied exactly once by the server (see the exactly-once {@code call}). */
    public <T> CompletableFuture<T> callParsed(InetSocketAddress address, int interfaceId, int procedureId,
            UserCredentials credentials, MessageLite request, Parser<T> responseParser, long timeoutMs,
            String clientId, long requestNumber) {
        return call(address, interfaceId, procedureId, credentials, request, (ByteBuf) null, timeoutMs, clientId,
                requestNumber)
                .thenApply(response -> {
                    try (response) {
                        return response.message(responseParser);
                    } catch (RpcException e) {
                        throw new CompletionException(e);
                    }
                });
    }

    /** Waits for a call and unwraps its failure into the {@link RpcException} that caused it. */
    public static <T> T await(CompletableFuture<T> future) throws RpcException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpcTransportException("interrupted while waiting for a response", false);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RpcException rpcException) {
                throw rpcException;
            }
            throw RpcException.internal("call failed: " + cause);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Connection connection : connections.values()) {
            connection.close();
        }
        connections.clear();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** The scheme this client speaks to {@code address}: its own, or this client's default (see the class doc). */
    public RpcScheme schemeOf(InetSocketAddress address) {
        if (address instanceof ServiceAddress service) {
            return service.scheme();
        }
        return RpcScheme.forTls(tls != null);
    }

    /** Connections are per address and scheme (a server that moved from plain to TLS gets a new one). */
    private record Target(RpcScheme scheme, InetSocketAddress address) {}

    private record PendingCall(CompletableFuture<RpcResponse> result, ScheduledFuture<?> timeout) {}

    /** One TCP connection (TLS over it when the target's scheme says so) and the calls waiting on it. */
    private final class Connection {
        private final Target target;
        private final InetSocketAddress address;
        private final ChannelFuture channelFuture;
        private final Map<Long, PendingCall> pending = new ConcurrentHashMap<>();
        /** Why the connection closed, when an error closed it; set on the event loop before the close. */
        private volatile Throwable closeCause;

        Connection(Target target) {
            this.target = target;
            this.address = target.address();
            Bootstrap bootstrap = new Bootstrap()
                    .group(group)
                    .channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            if (target.scheme().tls()) {
                                channel.pipeline().addLast(tls.newHandler(channel.alloc(), address));
                            }
                            channel.pipeline().addLast(new RecordDecoder(frameLimits));
                            channel.pipeline().addLast(new ResponseHandler(Connection.this));
                        }
                    });
            // A ServiceAddress was resolved when it was made; connecting by name re-resolves it, so DNS changes are seen.
            this.channelFuture = bootstrap.connect(address instanceof ServiceAddress
                    ? InetSocketAddress.createUnresolved(address.getHostString(), address.getPort()) : address);
            channelFuture.addListener(future -> {
                if (!future.isSuccess()) {
                    forget();
                    failAll("cannot connect to " + address + ": " + future.cause().getMessage());
                } else {
                    Channel channel = channelFuture.channel();
                    channel.closeFuture().addListener(closed -> {
                        forget();
                        // The calls fail once the event that closed the channel has been handled: a TLS handler
                        // closes the channel before it passes its failure on (exceptionCaught sets closeCause), so
                        // only then can the message say why, e.g. that the server refused the handshake.
                        try {
                            channel.eventLoop().execute(this::failAllClosed);
                        } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                            failAllClosed();
                        }
                    });
                }
            });
        }

        void send(long callId, RpcHeader header, MessageLite request, ByteBuf data,
                CompletableFuture<RpcResponse> result, long timeoutMs) {
            ScheduledFuture<?> timeout = group.next().schedule(() -> {
                PendingCall call = pending.remove(callId);
                if (call != null) {
                    call.result().completeExceptionally(new RpcTransportException(
                            "no response from " + address + " within " + timeoutMs + " ms", true));
                }
            }, timeoutMs, TimeUnit.MILLISECONDS);
            pending.put(callId, new PendingCall(result, timeout));
            channelFuture.addListener(connected -> {
                if (!connected.isSuccess()) {
                    RpcRecord.releaseQuietly(data);
                    fail(callId, "cannot connect to " + address + ": " + connected.cause().getMessage());
                    return;
                }
                Channel channel = channelFuture.channel();
                ByteBuf encoded = RecordEncoder.encode(channel.alloc(), header, request, data);
                channel.writeAndFlush(encoded).addListener(written -> {
                    if (!written.isSuccess()) {
                        fail(callId, "cannot send to " + address + ": " + reason(written.cause()));
                    }
                });
            });
        }

        void complete(RpcRecord record) {
            PendingCall call = pending.remove(record.header().getCallId());
            if (call == null) {
                record.release();
                return;
            }
            call.timeout().cancel(false);
            RpcHeader header = record.header();
            if (header.hasErrorResponse() && header.getErrorResponse().getErrorType() != ErrorType.ERROR_TYPE_NONE) {
                record.release();
                call.result().completeExceptionally(RpcException.fromResponse(header.getErrorResponse()));
            } else if (!call.result().complete(new RpcResponse(record.message(), record.data()))) {
                record.release();
            }
        }

        private void fail(long callId, String message) {
            PendingCall call = pending.remove(callId);
            if (call != null) {
                call.timeout().cancel(false);
                call.result().completeExceptionally(new RpcTransportException(message, false));
            }
        }

        private void failAll(String message) {
            for (Long callId : pending.keySet()) {
                fail(callId, message);
            }
        }

        private void failAllClosed() {
            Throwable cause = closeCause;
            failAll("connection to " + address + " closed" + (cause == null ? "" : ": " + reason(cause)));
        }

        /**
         * The failure and every distinct message of its causes: BoringSSL's engine reports a refused certificate as
         * "General OpenSslEngine problem" and keeps the reason (the trust manager's, e.g. no matching subject
         * alternative name) in its cause, and an error must name why.
         */
        private static String reason(Throwable failure) {
            StringBuilder text = new StringBuilder(String.valueOf(failure));
            int depth = 0;
            for (Throwable cause = failure.getCause(); cause != null && cause != failure && depth < 8;
                    cause = cause.getCause(), depth++) {
                String message = cause.getMessage();
                if (message != null && text.indexOf(message) < 0) {
                    text.append(" (because: ").append(message).append(')');
                }
            }
            return text.toString();
        }

        private void forget() {
            connections.remove(target, this);
        }

        void close() {
            channelFuture.channel().close();
        }
    }

    private static final class ResponseHandler extends SimpleChannelInboundHandler<RpcRecord> {
        private final Connection connection;

        ResponseHandler(Connection connection) {
            super(false);
            this.connection = connection;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, RpcRecord record) {
            connection.complete(record);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            connection.closeCause = cause; // named when the calls fail on the close (a refused TLS handshake)
            context.close();
        }
    }
}
