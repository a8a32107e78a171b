package org.xtreemfs.foundation.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/** A successful response: the message bytes and the data segment. The receiver closes it exactly once. */
public final class RpcResponse implements AutoCloseable {
    private final ByteBuf message;
    private final ByteBuf data;

    RpcResponse(ByteBuf message, ByteBuf data) {
        this.message = message;
        this.data = data;
    }

    public <T> T message(Parser<T> parser) throws RpcException {
        try {
            return ProtobufBytes.parse(parser, message);
        } catch (InvalidProtocolBufferException e) {
            throw RpcException.internal("response does not parse: " + e.getMessage());
        }
    }

    /** The data segment as a read-only view, valid until {@link #close()}. */
    public ByteBuf data() {
        return data.asReadOnly();
    }

    public int dataLength() {
        return data.readableBytes();
    }

    /** A copy of the data segment. */
    public byte[] dataBytes() {
        return ByteBufUtil.getBytes(data);
    }

    @Override
    public void close() {
        RpcRecord.releaseQuietly(message);
        RpcRecord.releaseQuietly(data);
    }
}
