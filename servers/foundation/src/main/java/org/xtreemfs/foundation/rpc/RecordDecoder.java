package org.xtreemfs.foundation.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * Turns a byte stream into {@link RpcRecord}s. Lengths are checked before the body is awaited, so an
 * oversized marker fails at once instead of buffering up to the claimed size.
 *
 * <p>A data segment of at least {@link #OWN_BUFFER_DATA_BYTES_MIN} bytes (an object write's or read's bytes) is
 * received into a direct buffer of its own, starting on a {@link #DATA_ALIGNMENT_BYTES} boundary, as soon as the
 * record's header and message are in: each received byte is copied once, straight to its place. Accumulating such
 * a record in the decoder's cumulation copied its bytes again each time the cumulation grew (a 1 MiB record
 * arrives in reads of up to 64 KiB), and left the data at an arbitrary address, which an OSD cannot hand to an
 * O_DIRECT write (storage.ObjectStore writes large aligned data that way).
 */
final class RecordDecoder extends ByteToMessageDecoder {
    /** Data segments this large get a buffer of their own (below it, one more copy costs less than a buffer). */
    static final int OWN_BUFFER_DATA_BYTES_MIN = 64 * 1024;
    /** Where such a buffer starts: a page, the largest block size O_DIRECT asks on common file systems. */
    static final int DATA_ALIGNMENT_BYTES = 4096;

    private final FrameLimits limits;
    /** Set after the first malformed record: the rest of the stream is discarded unread. */
    private boolean failed;
    /** While a large data segment arrives: the record's header and message, and its data as received so far. */
    private RpcHeader pendingHeader;
    private ByteBuf pendingMessage;
    private ByteBuf pendingData;

    RecordDecoder(FrameLimits limits) {
        this.limits = limits;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) throws Exception {
        if (pendingData == null || !(message instanceof ByteBuf in)) {
            super.channelRead(context, message);
            return;
        }
        // The cumulation is empty while a data segment arrives (decode consumed all of it), so the bytes go
        // straight into the segment's buffer; what follows the segment is decoded as usual.
        try {
            pendingData.writeBytes(in, Math.min(in.readableBytes(), pendingData.writableBytes()));
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
                pendingData = alignedBuffer(context, (int) dataLength);
                pendingData.writeBytes(in, Math.min(in.readableBytes(), (int) dataLength));
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
        ByteBuf data = in.readRetainedSlice((int) dataLength);
        out.add(new RpcRecord(header, message, data));
    }

    /**
     * An empty direct buffer of {@code lengthBytes} capacity starting on a {@link #DATA_ALIGNMENT_BYTES} boundary
     * (a slice of a slightly larger one; releasing the slice releases it).
     */
    static ByteBuf alignedBuffer(ChannelHandlerContext context, int lengthBytes) {
        ByteBuf allocation = context.alloc().directBuffer(lengthBytes + DATA_ALIGNMENT_BYTES - 1);
        int misalignment = allocation.nioBufferCount() == 1
                ? allocation.internalNioBuffer(0, allocation.capacity()).alignmentOffset(0, DATA_ALIGNMENT_BYTES)
                : 0;
        int shift = (DATA_ALIGNMENT_BYTES - misalignment) % DATA_ALIGNMENT_BYTES;
        return allocation.slice(shift, lengthBytes).writerIndex(0);
    }

    private RpcRecord takePending() {
        RpcRecord record = new RpcRecord(pendingHeader, pendingMessage, pendingData);
        pendingHeader = null;
        pendingMessage = null;
        pendingData = null;
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
}
