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
 */
final class RecordDecoder extends ByteToMessageDecoder {
    private final FrameLimits limits;
    /** Set after the first malformed record: the rest of the stream is discarded unread. */
    private boolean failed;

    RecordDecoder(FrameLimits limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            decodeRecord(in, out);
        } catch (MalformedFrameException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodeRecord(ByteBuf in, List<Object> out) {
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

    private static RpcHeader parseHeader(ByteBuf headerBytes) {
        try {
            return ProtobufBytes.parse(RpcHeader.parser(), headerBytes);
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedFrameException("unparseable RPC header: " + e.getMessage(), e);
        }
    }
}
