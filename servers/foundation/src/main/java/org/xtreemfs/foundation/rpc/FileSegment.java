package org.xtreemfs.foundation.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A reply's data segment sent straight from a file: Netty's native transport (and NIO) send a
 * {@link DefaultFileRegion} with sendfile, so the bytes go from the page cache to the socket without the two copies
 * of a buffer in between (pread into it, then the socket write out of it: 24-29 % of an OSD's CPU on the read path,
 * tests/bench/fuse/README.md). Over TLS, which must encrypt every byte in user space, {@link RpcCall} copies it into a
 * buffer instead ({@link #copyIntoBuffer}).
 *
 * <p>The record's framing fixes the data length before the transfer, so the owner of the file must keep the bytes
 * of [position, position + count) present and unchanged until {@code onReleased} runs: the transport releases the
 * segment once the transfer ended, failed, or the connection closed (exactly once). Should the file end earlier all
 * the same, the transfer fails and the connection is closed (the client retries), never a record with other bytes.
 * The file channel is the owner's: the segment never closes it.
 */
public final class FileSegment extends DefaultFileRegion {
    private final FileChannel file;
    private final Runnable onReleased;
    /** The event loop that transfers the segment, once {@link RpcCall} has handed it to a connection. */
    private volatile EventLoop transferLoop;

    public FileSegment(FileChannel file, long position, long count, Runnable onReleased) {
        super(file, position, count);
        this.file = file;
        this.onReleased = onReleased;
    }

    /**
     * Whether the calling thread is the one that transfers this segment: it must not wait for the transfer's end,
     * which only it can bring about.
     */
    public boolean transferredByCurrentThread() {
        EventLoop loop = transferLoop;
        return loop != null && loop.inEventLoop();
    }

    void transferredBy(EventLoop loop) {
        transferLoop = loop;
    }

    /**
     * The segment's bytes in a new buffer of the allocator, read from the file; throws when the file ends before
     * the segment does (the owner broke the contract above). Does not release the segment.
     */
    ByteBuf copyIntoBuffer(ByteBufAllocator allocator) throws IOException {
        int length = Math.toIntExact(count());
        ByteBuf copy = allocator.directBuffer(length, length);
        try {
            java.nio.ByteBuffer window = copy.nioBuffer(0, length);
            while (window.hasRemaining()) {
                if (file.read(window, position() + window.position()) < 0) {
                    throw new IOException("file ended " + (length - window.position()) + " bytes before its data"
                            + " segment of " + length + " bytes");
                }
            }
            copy.writerIndex(length);
            return copy;
        } catch (IOException | RuntimeException e) {
            copy.release();
            throw e;
        }
    }

    /** Hands the file back to its owner; the channel stays open (it is the owner's). */
    @Override
    protected void deallocate() {
        onReleased.run();
    }
}
