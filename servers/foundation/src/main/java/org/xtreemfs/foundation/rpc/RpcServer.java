package org.xtreemfs.foundation.rpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
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
 * calls get OVERLOADED at once); a malformed frame closes only the connection that sent it.
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);

    private final String serviceName;
    private final InetSocketAddress bindAddress;
    private final FrameLimits frameLimits;
    private final int pendingCallsMax;
    private final Map<Long, RpcHandler> handlers;
    private final AtomicInteger pendingCalls = new AtomicInteger();
    private final AtomicLong malformedFrames = new AtomicLong();
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private Channel serverChannel;

    private RpcServer(Builder builder) {
        this.serviceName = builder.serviceName;
        this.bindAddress = builder.bindAddress;
        this.frameLimits = builder.frameLimits;
        this.pendingCallsMax = builder.pendingCallsMax;
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
        bossGroup = new NioEventLoopGroup(1, new DefaultThreadFactory(serviceName + "-accept", true));
        workerGroup = new NioEventLoopGroup(0, new DefaultThreadFactory(serviceName + "-net", true));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast("decoder", new RecordDecoder(frameLimits));
                        channel.pipeline().addLast("dispatcher", new Dispatcher());
                    }
                });
        try {
            serverChannel = bootstrap.bind(bindAddress).sync().channel();
        } catch (RuntimeException e) {
            shutdownGroups();
            throw new IllegalStateException(serviceName + " cannot listen on " + bindAddress + ": " + e.getMessage(), e);
        }
        InetSocketAddress bound = boundAddress();
        LOG.info("{} listening on {}", serviceName, bound);
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

    private final class Dispatcher extends SimpleChannelInboundHandler<RpcRecord> {
        Dispatcher() {
            super(false);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, RpcRecord record) {
            if (record.header().getMessageType() != MessageType.REQUEST || !record.header().hasRequestHeader()) {
                record.release();
                throw new MalformedFrameException("record is not a request (type "
                        + record.header().getMessageType() + ")");
            }
            pendingCalls.incrementAndGet();
            RpcCall call = new RpcCall(record, context.channel(), pendingCalls::decrementAndGet, System.nanoTime());
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
