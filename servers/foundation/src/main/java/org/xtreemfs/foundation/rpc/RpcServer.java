package org.xtreemfs.foundation.rpc;

import org.xtreemfs.foundation.address.RpcScheme;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.interfaces.rpc.MessageType;

/**
 * Accepts connections and dispatches each request to the handler registered for its (interface,
 * procedure). Invariants: the number of calls in progress never exceeds {@code pendingCallsMax} (excess
 * calls get OVERLOADED at once); a malformed frame closes only the connection that sent it; the replies a
 * connection has not taken yet stay bounded in bytes (see {@link ReplyBufferLimits}), so a client that sends
 * and never reads costs the server at most that much memory and other clients are served meanwhile.
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
    /** Bytes of a TLS record header: enough to tell a TLS handshake from a plain record. */
    private static final int TLS_RECORD_HEADER_BYTES = 5;

    private final String serviceName;
    private final InetSocketAddress bindAddress;
    private final FrameLimits frameLimits;
    private final int pendingCallsMax;
    private final Map<Long, RpcHandler> handlers;
    private final AtomicInteger pendingCalls = new AtomicInteger();
    private final Runnable callAnswered = pendingCalls::decrementAndGet;
    private final AtomicLong malformedFrames = new AtomicLong();
    private final ReplyBufferLimits replyBufferLimits;
    /** Null: plain TCP. */
    private final RpcTls tls;
    private final AtomicLong readPauses = new AtomicLong();
    private final AtomicLong plainClientsRefused = new AtomicLong();
    private final AtomicLong unreadReplyClosures = new AtomicLong();
    private final AtomicLong batchedReplies = new AtomicLong();
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private Channel serverChannel;

    private RpcServer(Builder builder) {
        this.serviceName = builder.serviceName;
        this.bindAddress = builder.bindAddress;
        this.frameLimits = builder.frameLimits;
        this.pendingCallsMax = builder.pendingCallsMax;
        this.replyBufferLimits = builder.replyBufferLimits;
        this.tls = builder.tls;
        this.handlers = Map.copyOf(builder.handlers);
    }

    public static Builder builder(String serviceName, InetSocketAddress bindAddress) {
        return new Builder(serviceName, bindAddress);
    }

    /** Binds and starts serving; returns the bound address (port 0 in the bind address picks a free port). */
    public synchronized InetSocketAddress start() throws InterruptedException {
        if (serverChannel != null) {
            throw new IllegalStateException(serviceName + " RPC server already started");
        }
        bossGroup = NettyTransport.eventLoops(1, new DefaultThreadFactory(serviceName + "-accept", true));
        workerGroup = NettyTransport.eventLoops(0, new DefaultThreadFactory(serviceName + "-net", true));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NettyTransport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                        replyBufferLimits.resumeReadingBytes(), replyBufferLimits.pauseReadingBytes()))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            channel.pipeline().addLast("tls", new TlsOrPlainRefusal(channel));
                        }
                        channel.pipeline().addLast("backpressure", new ReplyBackpressure());
                        channel.pipeline().addLast("decoder", new RecordDecoder(frameLimits));
                        channel.pipeline().addLast("dispatcher", new Dispatcher(channel));
                    }
                });
        try {
            serverChannel = bootstrap.bind(bindAddress).sync().channel();
        } catch (RuntimeException e) {
            shutdownGroups();
            throw new IllegalStateException(serviceName + " cannot listen on " + bindAddress + ": " + e.getMessage(), e);
        }
        InetSocketAddress bound = boundAddress();
        LOG.info("{} listening on {} ({} transport{})", serviceName, bound, NettyTransport.name(),
                NettyTransport.nativeEpoll() ? "" : "; native epoll unavailable: " + NettyTransport.unavailableReason());
        return bound;
    }

    public InetSocketAddress boundAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public int pendingCalls() {
        return pendingCalls.get();
    }

    /** Connections closed because of malformed frames since start. */
    public long malformedFrames() {
        return malformedFrames.get();
    }

    /** How often a connection stopped being read because its unsent replies reached the pause bound. */
    public long readPauses() {
        return readPauses.get();
    }

    /** The scheme this port speaks, which the server registers at the DIR for others to call it by. */
    public RpcScheme scheme() {
        return RpcScheme.forTls(tls != null);
    }

    /** Connections refused because they spoke plain TCP to this TLS port. */
    public long plainClientsRefused() {
        return plainClientsRefused.get();
    }

    /** Connections closed because their unsent replies passed the close bound (a client that does not read). */
    public long unreadReplyClosures() {
        return unreadReplyClosures.get();
    }

    /** Replies sent in a read batch's one buffer rather than one by one (see {@link ReplyWriter#sendInBatch}). */
    public long batchedReplies() {
        return batchedReplies.get();
    }

    @Override
    public synchronized void close() {
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        shutdownGroups();
    }

    private void shutdownGroups() {
        if (bossGroup != null) {
            bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        if (workerGroup != null) {
            workerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    static long handlerKey(int interfaceId, int procedureId) {
        return ((long) interfaceId << 32) | (procedureId & 0xffffffffL);
    }

    /**
     * Bounds in bytes of the replies written to one connection and not yet taken by the peer (Netty's outbound
     * buffer plus writes queued for the event loop). At {@code pauseReadingBytes} the server stops reading the
     * connection's requests until the buffer has drained to {@code resumeReadingBytes}; requests already read
     * still get answered, so past {@code closeBytes} the connection is closed with a log line and its buffered
     * replies are freed. A client that reads its replies never comes near: the socket drains at network speed.
     */
    public record ReplyBufferLimits(int resumeReadingBytes, int pauseReadingBytes, long closeBytes) {
        /** 8 MiB / 16 MiB / 256 MiB: room for a burst of 1 MiB read replies, far below any heap. */
        public static final ReplyBufferLimits DEFAULT = new ReplyBufferLimits(8 << 20, 16 << 20, 256L << 20);

        public ReplyBufferLimits {
            if (resumeReadingBytes <= 0 || pauseReadingBytes < resumeReadingBytes || closeBytes < pauseReadingBytes) {
                throw new IllegalArgumentException("reply buffer limits need 0 < resume <= pause <= close bytes, were "
                        + resumeReadingBytes + ", " + pauseReadingBytes + ", " + closeBytes);
            }
        }
    }

    /** Applies {@link ReplyBufferLimits} to one connection; runs on its event loop. */
    private final class ReplyBackpressure extends ChannelDuplexHandler {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext context) {
            boolean writable = context.channel().isWritable();
            if (!writable) {
                readPauses.incrementAndGet();
            }
            context.channel().config().setAutoRead(writable);
            context.fireChannelWritabilityChanged();
        }

        @Override
        public void write(ChannelHandlerContext context, Object message, ChannelPromise promise) {
            context.write(message, promise);
            ChannelOutboundBuffer buffer = context.channel().unsafe().outboundBuffer();
            if (buffer != null && buffer.totalPendingWriteBytes() > replyBufferLimits.closeBytes()
                    && context.channel().isOpen()) {
                unreadReplyClosures.incrementAndGet();
                LOG.warn("{}: closing connection from {}: {} bytes of replies not taken by the client, more than {}"
                        + " (it sends requests and does not read the replies)", serviceName,
                        context.channel().remoteAddress(), buffer.totalPendingWriteBytes(),
                        replyBufferLimits.closeBytes());
                context.close();
            }
        }
    }

    /**
     * First handler of a TLS port: looks at a connection's first bytes. A TLS handshake gets the TLS handler in
     * its place; anything else is a plain client, whose requests are answered AUTH_FAILED saying the port speaks
     * TLS only, and whose connection is then closed (so a plain client learns why instead of seeing a reset).
     */
    private final class TlsOrPlainRefusal extends ByteToMessageDecoder {
        private final SocketChannel channel;

        TlsOrPlainRefusal(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < TLS_RECORD_HEADER_BYTES) {
                return;
            }
            if (SslHandler.isEncrypted(in, false)) {
                context.pipeline().replace(this, "tls", tls.newHandler(channel.alloc(), channel.remoteAddress()));
                return;
            }
            plainClientsRefused.incrementAndGet();
            LOG.warn("{}: refusing plain (non-TLS) client {}: this port speaks TLS only", serviceName,
                    channel.remoteAddress());
            context.pipeline().replace("dispatcher", "plain-refusal", new PlainRefusal());
            context.pipeline().remove(this); // hands the bytes read so far on to the record decoder
        }
    }

    /** Answers every request of a plain client on a TLS port AUTH_FAILED, then closes its connection. */
    private final class PlainRefusal extends SimpleChannelInboundHandler<RpcRecord> {
        PlainRefusal() {
            super(false);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, RpcRecord record) {
            new RpcCall(record, context.channel(), new ReplyWriter(context.channel(), batchedReplies), () -> { },
                    System.nanoTime())
                    .fail(RpcException.authFailed(
                    serviceName + " at port " + boundAddress().getPort() + " speaks TLS only; this client connected without"
                            + " TLS (give it the cluster's CA: --tls-ca, or ClientOptions.tls)"));
            context.channel().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            context.close();
        }
    }

    private final class Dispatcher extends SimpleChannelInboundHandler<RpcRecord> {
        /** This connection's replies, flushed once per batch of requests read (see {@link ReplyWriter}). */
        private final ReplyWriter replies;

        Dispatcher(Channel channel) {
            super(false);
            this.replies = new ReplyWriter(channel, batchedReplies);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext context) {
            replies.discardBatch();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext context) {
            replies.readBatchEnded();
            context.fireChannelReadComplete();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, RpcRecord record) {
            if (record.header().getMessageType() != MessageType.REQUEST || !record.header().hasRequestHeader()) {
                record.release();
                throw new MalformedFrameException("record is not a request (type "
                        + record.header().getMessageType() + ")");
            }
            replies.readBatchStarted();
            pendingCalls.incrementAndGet();
            RpcCall call = new RpcCall(record, context.channel(), replies, callAnswered, System.nanoTime());
            if (pendingCalls.get() > pendingCallsMax) {
                call.fail(RpcException.overloaded(serviceName + " has " + pendingCallsMax
                        + " calls in progress (rpc.pendingCallsMax); retry later"));
                return;
            }
            int interfaceId = call.requestHeader().getInterfaceId();
            RpcHandler handler = handlers.get(handlerKey(interfaceId, call.procedureId()));
            if (handler == null) {
                call.fail(RpcException.invalidArguments(serviceName + " has no procedure " + call.procedureId()
                        + " in interface " + interfaceId));
                return;
            }
            try {
                handler.handle(call);
            } catch (RpcException e) {
                call.fail(e);
            } catch (Exception | AssertionError e) {
                LOG.error("{}: procedure {} failed", serviceName, call.procedureId(), e);
                call.fail(RpcException.internal(serviceName + ": " + e));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            Throwable root = cause;
            while (root.getCause() != null && !(root instanceof MalformedFrameException)) {
                root = root.getCause();
            }
            if (root instanceof MalformedFrameException) {
                malformedFrames.incrementAndGet();
                LOG.warn("{}: closing connection from {}: {}", serviceName, context.channel().remoteAddress(),
                        root.getMessage());
            } else {
                LOG.warn("{}: closing connection from {} after error: {}", serviceName,
                        context.channel().remoteAddress(), cause.toString());
            }
            context.close();
        }
    }

    public static final class Builder {
        private final String serviceName;
        private final InetSocketAddress bindAddress;
        private final Map<Long, RpcHandler> handlers = new HashMap<>();
        private FrameLimits frameLimits = FrameLimits.DEFAULT;
        private int pendingCallsMax = 10_000;
        private ReplyBufferLimits replyBufferLimits = ReplyBufferLimits.DEFAULT;
        private RpcTls tls;

        private Builder(String serviceName, InetSocketAddress bindAddress) {
            this.serviceName = serviceName;
            this.bindAddress = bindAddress;
        }

        public Builder frameLimits(FrameLimits limits) {
            this.frameLimits = limits;
            return this;
        }

        public Builder pendingCallsMax(int pendingCallsMax) {
            if (pendingCallsMax <= 0) {
                throw new IllegalArgumentException("pendingCallsMax must be positive: " + pendingCallsMax);
            }
            this.pendingCallsMax = pendingCallsMax;
            return this;
        }

        /** Serves TLS only (a {@link RpcTls#server}); without this call the port speaks plain TCP. */
        public Builder tls(RpcTls serverTls) {
            this.tls = java.util.Objects.requireNonNull(serverTls, "serverTls");
            return this;
        }

        public Builder replyBufferLimits(ReplyBufferLimits limits) {
            this.replyBufferLimits = java.util.Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Registers the handler of one procedure; registering the same procedure twice is a bug. */
        public Builder handle(int interfaceId, int procedureId, RpcHandler handler) {
            RpcHandler previous = handlers.putIfAbsent(handlerKey(interfaceId, procedureId), handler);
            if (previous != null) {
                throw new IllegalStateException("procedure " + procedureId + " of interface " + interfaceId
                        + " registered twice");
            }
            return this;
        }

        public RpcServer build() {
            return new RpcServer(this);
        }
    }
}
