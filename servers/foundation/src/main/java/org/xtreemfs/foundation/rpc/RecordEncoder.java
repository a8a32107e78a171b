package org.xtreemfs.foundation.rpc;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * Writes a record as one composite buffer: marker + header + message in a small buffer, the data segment
 * appended without copying (a small data segment is copied behind them into one buffer, see
 * {@link #COPIED_DATA_BYTES_MAX}). Ownership of {@code data} passes to the returned buffer. A data segment sent from a
 * file ({@link FileSegment}) follows its record's {@link #encodePrefix prefix} as a message of its own.
 *
 * <p>Header and message are serialised straight into the buffer's memory (a {@link CodedOutputStream} over its NIO
 * view): writing them through a ByteBufOutputStream made protobuf allocate a stream buffer of up to 4 KiB per
 * message, twice per record, as parsing through a stream did (see {@link ProtobufBytes}).
 */
final class RecordEncoder {
    /**
     * Data segments up to this size are copied behind the prefix into one buffer instead of joined to it as a
     * composite: for a 4 KiB read answer the composite buffer (its component list, and the array of NIO buffers the
     * socket write asks it for) cost more than copying 4 KiB (async-profiler: a quarter of the encoder's samples).
     */
    static final int COPIED_DATA_BYTES_MAX = 16 * 1024;

    private RecordEncoder() {}

    static ByteBuf encode(ByteBufAllocator allocator, RpcHeader header, MessageLite message, ByteBuf data) {
        int dataLength = data == null ? 0 : data.readableBytes();
        boolean copyData = dataLength > 0 && dataLength <= COPIED_DATA_BYTES_MAX;
        ByteBuf prefix;
        try {
            prefix = encodePrefix(allocator, header, message, dataLength, copyData ? dataLength : 0);
        } catch (RuntimeException e) {
            RpcRecord.releaseQuietly(data);
            throw e;
        }
        if (dataLength == 0 || copyData) {
            if (copyData) {
                prefix.writeBytes(data, data.readerIndex(), dataLength);
            }
            RpcRecord.releaseQuietly(data);
            return prefix;
        }
        CompositeByteBuf record = allocator.compositeBuffer(2);
        record.addComponents(true, prefix, data);
        return record;
    }

    /**
     * The record's marker, header and message, for a data segment of {@code dataLength} bytes that the caller sends
     * behind it (a {@link FileSegment}), with room for {@code spareBytes} more.
     */
    static ByteBuf encodePrefix(ByteBufAllocator allocator, RpcHeader header, MessageLite message, int dataLength,
            int spareBytes) {
        int headerLength = header.getSerializedSize();
        int messageLength = message == null ? 0 : message.getSerializedSize();
        int prefixLength = RecordMarker.SIZE_BYTES + headerLength + messageLength;
        ByteBuf prefix = allocator.buffer(prefixLength + spareBytes, prefixLength + spareBytes);
        try {
            prefix.writeInt(headerLength).writeInt(messageLength).writeInt(dataLength);
            CodedOutputStream stream = CodedOutputStream.newInstance(
                    prefix.nioBuffer(prefix.writerIndex(), headerLength + messageLength));
            header.writeTo(stream);
            if (message != null) {
                message.writeTo(stream);
            }
            stream.checkNoSpaceLeft(); // the sizes computed above were written exactly
            prefix.writerIndex(prefixLength);
            return prefix;
        } catch (IOException | RuntimeException e) {
            prefix.release();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }
}
