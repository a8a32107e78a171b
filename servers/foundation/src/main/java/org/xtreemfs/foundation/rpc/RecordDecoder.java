package org.xtreemfs.foundation.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.UncheckedBooleanSupplier;
import java.util.List;
import java.util.Map;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * Turns a byte stream into {@link RpcRecord}s. Lengths are checked before the body is awaited, so an
 * oversized marker fails at once instead of buffering up to the claimed size.
 *
 * <p>A data segment of at least {@link #OWN_BUFFER_DATA_BYTES_MIN} bytes (an object write's or read's bytes) is
 * received into a direct buffer of its own ({@link ReceiveBuffers}), starting on a {@link #DATA_ALIGNMENT_BYTES}
 * boundary, as soon as the record's header and message are in. Accumulating such a record in the decoder's
 * cumulation copied its bytes again each time the cumulation grew, and left the data at an arbitrary address, which
 * an OSD cannot hand to an O_DIRECT write (storage.ObjectStore writes large aligned data that way).
 *
 * <p>Where this decoder is the first handler to see the socket's bytes (no TLS or other decoder before it), the
 * socket reads the rest of such a segment straight into that buffer: the channel's receive buffer allocator
 * ({@link SegmentReads}) hands Netty's read loop the unfilled part of the segment instead of a buffer of its own, so
 * each byte is copied once, by the kernel, and a read takes as much of the segment as the socket holds instead of
 * at most 64 KiB (profiled on an OSD's sequential 1 MiB writes: 16.7 recvfrom per MiB, and the copy out of Netty's
 * buffers 5 % of its samples; tests/bench/fuse/README.md, session 12). The reads never go past the segment's end, so
 * the next record's bytes are read and decoded as usual. Elsewhere (under TLS) the bytes are copied into the buffer.
 */
final class RecordDecoder extends ByteToMessageDecoder {
    /** Data segments this large get a buffer of their own (below it, one more copy costs less than a buffer). */
    static final int OWN_BUFFER_DATA_BYTES_MIN = 64 * 1024;
    /** Where such a buffer starts: a page, the largest block size O_DIRECT asks on common file systems. */
    static final int DATA_ALIGNMENT_BYTES = 4096;

    private final FrameLimits limits;
    private final ReceiveBuffers receiveBuffers;
    /** Set after the first malformed record: the rest of the stream is discarded unread. */
    private boolean failed;
    /** While a large data segment arrives: the record's header and message, and its data as received so far. */
    private RpcHeader pendingHeader;
    private ByteBuf pendingMessage;
    private ByteBuf pendingData;
    /** The last buffer {@link SegmentReads} handed to a socket read: a view of pendingData's unfilled part. */
    private ByteBuf segmentRead;
    /** Bytes of large data segments the socket read in place, and those copied into place (tests). */
    private long bytesReadInPlace;
    private long bytesCopiedInPlace;

    RecordDecoder(FrameLimits limits) {
        this(limits, ReceiveBuffers.SHARED);
    }

    RecordDecoder(FrameLimits limits, ReceiveBuffers receiveBuffers) {
        this.limits = limits;
        this.receiveBuffers = receiveBuffers;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        ChannelConfig config = context.channel().config();
        // Netty's adaptive allocator is both; another one is left alone (its segments are copied into place).
        if (firstToSeeTheSocketsBytes(context)
                && config.getRecvByteBufAllocator() instanceof MaxMessagesRecvByteBufAllocator usual
                && usual.newHandle() instanceof RecvByteBufAllocator.ExtendedHandle) {
            config.setRecvByteBufAllocator(new SegmentReads(usual));
        }
    }

    /**
     * Whether no handler before this one may change or keep the bytes read from the socket (a TLS handler does): only
     * then may the socket read into a data segment's buffer. A handler that does not override channelRead passes them
     * on as they are (RpcServer's reply back-pressure handler).
     */
    private static boolean firstToSeeTheSocketsBytes(ChannelHandlerContext context) {
        for (Map.Entry<String, ChannelHandler> entry : context.pipeline()) {
            ChannelHandler handler = entry.getValue();
            if (handler == context.handler()) {
                return true;
            }
            if (handler instanceof ChannelInboundHandler && readsMessages(handler)) {
                return false;
            }
        }
        return false;
    }

    private static boolean readsMessages(ChannelHandler handler) {
        try {
            return handler.getClass().getMethod("channelRead", ChannelHandlerContext.class, Object.class)
                    .getDeclaringClass() != ChannelInboundHandlerAdapter.class;
        } catch (NoSuchMethodException e) {
            return true;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) throws Exception {
        if (pendingData == null || !(message instanceof ByteBuf in)) {
            super.channelRead(context, message);
            return;
        }
        if (message == segmentRead) {
            // The socket read these bytes into their place in the segment (SegmentReads), never past its end.
            segmentRead = null;
            int received = in.readableBytes();
            in.release();
            bytesReadInPlace += received;
            pendingData.writerIndex(pendingData.writerIndex() + received);
            if (!pendingData.isWritable()) {
                context.fireChannelRead(takePending());
            }
            return;
        }
        // The cumulation is empty while a data segment arrives (decode consumed all of it), so the bytes go
        // straight into the segment's buffer; what follows the segment is decoded as usual.
        try {
            copyIntoPending(in);
            if (!pendingData.isWritable()) {
                context.fireChannelRead(takePending());
            }
        } catch (RuntimeException e) {
            in.release();
            throw e;
        }
        if (in.isReadable()) {
            super.channelRead(context, in);
        } else {
            in.release();
        }
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            decodeRecord(context, in, out);
        } catch (MalformedFrameException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodeRecord(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < RecordMarker.SIZE_BYTES) {
            return;
        }
        int start = in.readerIndex();
        long headerLength = in.getUnsignedInt(start);
        long messageLength = in.getUnsignedInt(start + 4);
        long dataLength = in.getUnsignedInt(start + 8);
        String violation = limits.violation(headerLength, messageLength, dataLength);
        if (violation != null) {
            throw new MalformedFrameException("bad record marker: " + violation);
        }
        if (dataLength >= OWN_BUFFER_DATA_BYTES_MIN) {
            if (in.readableBytes() >= RecordMarker.SIZE_BYTES + headerLength + messageLength) {
                in.skipBytes(RecordMarker.SIZE_BYTES);
                pendingHeader = parseHeader(in.readSlice((int) headerLength));
                pendingMessage = in.readRetainedSlice((int) messageLength);
                pendingData = receiveBuffers.take(context.alloc(), (int) dataLength);
                copyIntoPending(in);
                if (!pendingData.isWritable()) {
                    out.add(takePending());
                }
            }
            return;
        }
        long bodyLength = headerLength + messageLength + dataLength;
        if (in.readableBytes() < RecordMarker.SIZE_BYTES + bodyLength) {
            return;
        }
        in.skipBytes(RecordMarker.SIZE_BYTES);
        RpcHeader header = parseHeader(in.readSlice((int) headerLength));
        ByteBuf message = in.readRetainedSlice((int) messageLength);
        // Most requests (every object read) carry no data: an empty segment is the shared empty buffer, not a retained
        // slice, whose pooled object the thread answering the call would give back to this one's recycler (a
        // cross-thread release per read, Netty's Recycler ~5 % of an OSD's samples under random reads).
        ByteBuf data = dataLength == 0 ? Unpooled.EMPTY_BUFFER : in.readRetainedSlice((int) dataLength);
        out.add(new RpcRecord(header, message, data));
    }

    private void copyIntoPending(ByteBuf in) {
        int length = Math.min(in.readableBytes(), pendingData.writableBytes());
        pendingData.writeBytes(in, length);
        bytesCopiedInPlace += length;
    }

    long bytesReadInPlace() {
        return bytesReadInPlace;
    }

    long bytesCopiedInPlace() {
        return bytesCopiedInPlace;
    }

    private RpcRecord takePending() {
        RpcRecord record = new RpcRecord(pendingHeader, pendingMessage, pendingData);
        pendingHeader = null;
        pendingMessage = null;
        pendingData = null;
        segmentRead = null;
        return record;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext context) {
        if (pendingData != null) {
            takePending().release(); // the connection ended within a record's data
        }
    }

    private static RpcHeader parseHeader(ByteBuf headerBytes) {
        try {
            return ProtobufBytes.parse(RpcHeader.parser(), headerBytes);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedFrameException("unparseable RPC header: " + e.getMessage(), e);
        }
    }

    /**
     * The channel's receive buffer allocator while this decoder reads its socket first-hand: the channel's own
     * (Netty's adaptive one), except that while a large data segment arrives, a read gets the unfilled rest of the
     * segment's buffer (a retained slice; Netty releases it, or passes it to {@link #channelRead}).
     */
    private final class SegmentReads implements MaxMessagesRecvByteBufAllocator {
        private final MaxMessagesRecvByteBufAllocator usual;

        SegmentReads(MaxMessagesRecvByteBufAllocator usual) {
            this.usual = usual;
        }

        @Override
        public Handle newHandle() {
            return new SegmentReadHandle((ExtendedHandle) usual.newHandle());
        }

        @Override
        public int maxMessagesPerRead() {
            return usual.maxMessagesPerRead();
        }

        @Override
        public MaxMessagesRecvByteBufAllocator maxMessagesPerRead(int maxMessagesPerRead) {
            usual.maxMessagesPerRead(maxMessagesPerRead);
            return this;
        }
    }

    /** Delegates all but {@link #allocate} to the usual handle, so the read loop's limits stay Netty's own. */
    private final class SegmentReadHandle implements RecvByteBufAllocator.ExtendedHandle {
        private final RecvByteBufAllocator.ExtendedHandle usual;

        SegmentReadHandle(RecvByteBufAllocator.ExtendedHandle usual) {
            this.usual = usual;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator allocator) {
            ByteBuf segment = pendingData;
            if (segment == null) {
                return usual.allocate(allocator);
            }
            segmentRead = segment.retainedSlice(segment.writerIndex(), segment.writableBytes()).writerIndex(0);
            return segmentRead;
        }

        @Override
        public int guess() {
            return usual.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            usual.reset(config);
        }

        @Override
        public void incMessagesRead(int messages) {
            usual.incMessagesRead(messages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            usual.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return usual.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            usual.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return usual.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return usual.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return usual.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            usual.readComplete();
        }
    }
}
