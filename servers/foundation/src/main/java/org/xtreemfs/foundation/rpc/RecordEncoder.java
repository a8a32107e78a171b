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
     * A record whose data segment of at most {@code dataBytesMax} bytes is written in place behind the prefix, from
     * {@link #dataStart} on; {@link #dataWritten} then sets its length. The marker's data length is a fixed-width
     * field, so the prefix is the same whatever length the data turns out to have.
     */
    static ByteBuf encodeWithDataRoom(ByteBufAllocator allocator, RpcHeader header, MessageLite message,
            int dataBytesMax) {
        return encodePrefix(allocator, header, message, dataBytesMax, dataBytesMax);
    }

    /** Where the data segment of a record from {@link #encodeWithDataRoom} starts. */
    static int dataStart(ByteBuf record) {
        return record.writerIndex();
    }

    /** Ends a record from {@link #encodeWithDataRoom} after {@code dataLength} bytes were written at its data start. */
    static void dataWritten(ByteBuf record, int dataLength) {
        record.setInt(DATA_LENGTH_INDEX, dataLength);
        record.writerIndex(record.writerIndex() + dataLength);
    }

    /** The marker's data length: its third 4-byte field (header, message, data lengths; {@link RecordMarker}). */
    private static final int DATA_LENGTH_INDEX = 8;

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
            writePrefix(prefix, header, headerLength, message, messageLength, dataLength);
            return prefix;
        } catch (RuntimeException e) {
            prefix.release();
            throw e;
        }
    }

    /** Bytes of a record with this header and message and a data segment of {@code dataLength} bytes. */
    static int recordLength(RpcHeader header, MessageLite message, int dataLength) {
        return RecordMarker.SIZE_BYTES + header.getSerializedSize() + (message == null ? 0 : message.getSerializedSize())
                + dataLength;
    }

    /**
     * Appends a whole record to {@code target}, {@code data} (up to {@link #COPIED_DATA_BYTES_MAX} bytes, or null)
     * copied behind the message; {@code target} must have {@link #recordLength} bytes writable. {@code data} is
     * released; on failure {@code target} is left as it was.
     */
    static void appendTo(ByteBuf target, RpcHeader header, MessageLite message, ByteBuf data) {
        int start = target.writerIndex();
        try {
            int dataLength = data == null ? 0 : data.readableBytes();
            if (dataLength > COPIED_DATA_BYTES_MAX) {
                throw new IllegalArgumentException("data segment of " + dataLength + " bytes is appended only up to "
                        + COPIED_DATA_BYTES_MAX);
            }
            writePrefix(target, header, header.getSerializedSize(), message,
                    message == null ? 0 : message.getSerializedSize(), dataLength);
            if (dataLength > 0) {
                target.writeBytes(data, data.readerIndex(), dataLength);
            }
        } catch (RuntimeException e) {
            target.writerIndex(start);
            throw e;
        } finally {
            RpcRecord.releaseQuietly(data);
        }
    }

    /**
     * Writes marker, header and message at {@code target}'s writer index, which it moves behind them. Header and
     * message are serialised straight into the buffer's memory (see the class comment).
     */
    private static void writePrefix(ByteBuf target, RpcHeader header, int headerLength, MessageLite message,
            int messageLength, int dataLength) {
        target.writeInt(headerLength).writeInt(messageLength).writeInt(dataLength);
        CodedOutputStream stream = CodedOutputStream.newInstance(
                target.nioBuffer(target.writerIndex(), headerLength + messageLength));
        try {
            header.writeTo(stream);
            if (message != null) {
                message.writeTo(stream);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stream.checkNoSpaceLeft(); // the sizes computed above were written exactly
        target.writerIndex(target.writerIndex() + headerLength + messageLength);
    }
}
