package org.xtreemfs.foundation.rpc;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.CompositeByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * Writes a record as one composite buffer: marker + header + message in a small buffer, the data segment
 * appended without copying. Ownership of {@code data} passes to the returned buffer.
 */
final class RecordEncoder {
    private RecordEncoder() {}

    static ByteBuf encode(ByteBufAllocator allocator, RpcHeader header, MessageLite message, ByteBuf data) {
        int headerLength = header.getSerializedSize();
        int messageLength = message == null ? 0 : message.getSerializedSize();
        int dataLength = data == null ? 0 : data.readableBytes();
        ByteBuf prefix = allocator.buffer(RecordMarker.SIZE_BYTES + headerLength + messageLength);
        prefix.writeInt(headerLength).writeInt(messageLength).writeInt(dataLength);
        try (ByteBufOutputStream stream = new ByteBufOutputStream(prefix)) {
            header.writeTo(stream);
            if (message != null) {
                message.writeTo(stream);
            }
        } catch (IOException e) {
            prefix.release();
            RpcRecord.releaseQuietly(data);
            throw new UncheckedIOException(e);
        }
        if (dataLength == 0) {
            RpcRecord.releaseQuietly(data);
            return prefix;
        }
        CompositeByteBuf record = allocator.compositeBuffer(2);
        record.addComponents(true, prefix, data);
        return record;
    }
}
