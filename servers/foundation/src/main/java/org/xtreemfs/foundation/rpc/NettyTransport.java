package org.xtreemfs.foundation.rpc;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.concurrent.ThreadFactory;

/**
 * The socket transport of the RPC servers: Netty's native epoll transport where it loads (Linux on x86-64, its
 * library shipped in netty-transport-native-epoll), else Java NIO. Why epoll: a reply written from a storage thread
 * is handed to the connection's event loop, which the native transport wakes with an eventfd and serves with fewer
 * system calls and less garbage per request than NIO's selector; the two behave alike otherwise (same pipeline,
 * options and back-pressure).
 */
final class NettyTransport {
    private NettyTransport() {}

    /** Whether the native transport is used (false: NIO, with the reason in {@link #unavailableReason}). */
    static boolean nativeEpoll() {
        return Epoll.isAvailable();
    }

    static String unavailableReason() {
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? "" : cause.toString();
    }

    static String name() {
        return nativeEpoll() ? "epoll" : "nio";
    }

    static EventLoopGroup eventLoops(int threads, ThreadFactory threadFactory) {
        return nativeEpoll() ? new EpollEventLoopGroup(threads, threadFactory)
                : new NioEventLoopGroup(threads, threadFactory);
    }

    static Class<? extends ServerChannel> serverChannel() {
        return nativeEpoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
