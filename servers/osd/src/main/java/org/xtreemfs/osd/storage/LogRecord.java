package org.xtreemfs.osd.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One record of the log-structured layout: a write of {@code data} at {@code offsetInObject} of object
 * {@code objectNumber} of a file (whose first byte is file offset {@code objectStartOffset}), under a capability
 * of {@code truncateEpoch}. The header makes the log self-describing, so the index can be rebuilt from it.
 *
 * <pre>
 * magic u32 | totalLength u32 | crc32c u32 (of every byte after it) | fileIdLength u16 | fileId (UTF-8)
 * | objectNumber i64 | offsetInObject i32 | objectStartOffset i64 | truncateEpoch u32 | dataLength i32 | data
 * </pre>
 * Big-endian. A record whose magic, length or checksum does not hold is torn (a crash in the middle of an append)
 * or corrupt, and is never served.
 */
record LogRecord(String fileId, long objectNumber, int offsetInObject, long objectStartOffset, int truncateEpoch,
        ByteBuffer data) {
    static final int MAGIC = 0x58464c47; // "XFLG"
    /** magic, totalLength, crc. */
    static final int PREFIX_BYTES = 12;
    private static final int FIXED_BODY_BYTES = 2 + 8 + 4 + 8 + 4 + 4;
    /** A record is at most this long (an 8 MiB object's write plus the header). */
    static final int TOTAL_BYTES_MAX = (8 << 20) + PREFIX_BYTES + FIXED_BODY_BYTES + 65535 * 3;

    LogRecord {
        byte[] id = fileId.getBytes(StandardCharsets.UTF_8);
        if (id.length > 65535) {
            throw new IllegalArgumentException("file id of " + id.length + " bytes is longer than 65535 bytes");
        }
    }

    /** Bytes the record takes in the log. */
    int totalBytes() {
        return PREFIX_BYTES + FIXED_BODY_BYTES + fileId.getBytes(StandardCharsets.UTF_8).length + data.remaining();
    }

    /** Offset of the data's first byte from the record's start. */
    int dataOffset() {
        return totalBytes() - data.remaining();
    }

    /** The record as written to the log (the data buffer's position is not moved). */
    ByteBuffer encode() {
        byte[] id = fileId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(totalBytes());
        buffer.putInt(MAGIC).putInt(buffer.capacity()).putInt(0);
        buffer.putShort((short) id.length).put(id).putLong(objectNumber).putInt(offsetInObject)
                .putLong(objectStartOffset).putInt(truncateEpoch).putInt(data.remaining()).put(data.duplicate());
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), PREFIX_BYTES, buffer.capacity() - PREFIX_BYTES);
        buffer.putInt(8, (int) crc.getValue());
        return buffer.flip();
    }

    /** The total length a record prefix announces, or -1 if the prefix is not a record's (bad magic or length). */
    static int announcedLength(ByteBuffer prefix) {
        if (prefix.remaining() < PREFIX_BYTES || prefix.getInt(prefix.position()) != MAGIC) {
            return -1;
        }
        int total = prefix.getInt(prefix.position() + 4);
        return total < PREFIX_BYTES + FIXED_BODY_BYTES || total > TOTAL_BYTES_MAX ? -1 : total;
    }

    /** Decodes a whole record (its announced length of bytes); null when the checksum or the fields do not hold. */
    static LogRecord decode(ByteBuffer bytes) {
        int total = announcedLength(bytes);
        if (total < 0 || bytes.remaining() != total) {
            return null;
        }
        ByteBuffer record = bytes.slice();
        CRC32C crc = new CRC32C();
        crc.update(record.duplicate().position(PREFIX_BYTES));
        if ((int) crc.getValue() != record.getInt(8)) {
            return null;
        }
        record.position(PREFIX_BYTES);
        int idLength = Short.toUnsignedInt(record.getShort());
        if (record.remaining() < idLength + FIXED_BODY_BYTES - 2) {
            return null;
        }
        byte[] id = new byte[idLength];
        record.get(id);
        long objectNumber = record.getLong();
        int offsetInObject = record.getInt();
        long objectStartOffset = record.getLong();
        int epoch = record.getInt();
        int dataLength = record.getInt();
        if (dataLength < 0 || dataLength != record.remaining() || offsetInObject < 0) {
            return null;
        }
        return new LogRecord(new String(id, StandardCharsets.UTF_8), objectNumber, offsetInObject,
                objectStartOffset, epoch, record.slice());
    }
}
