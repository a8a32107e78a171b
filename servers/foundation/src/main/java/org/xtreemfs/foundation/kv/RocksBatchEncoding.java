package org.xtreemfs.foundation.kv;

/**
 * A {@link WriteBatch} in RocksDB's serialized batch format, which {@code new org.rocksdb.WriteBatch(byte[])} takes
 * as it is: RocksDB's {@code WriteBatch::rep_} (db/write_batch.cc), the same bytes its write-ahead log stores. Why:
 * building the native batch put by put cost one JNI call per operation (6-10 per MRC create: the MRC's profile,
 * tests/bench/fuse/README.md), the encoding here none; the store then makes three calls per batch whatever its size
 * (create, write, dispose).
 *
 * <p>The format: a 12-byte header, the sequence number (fixed64, little-endian; 0, RocksDB assigns it when it writes)
 * and the operation count (fixed32, little-endian), then per operation a tag byte and length-prefixed (varint32)
 * slices: a put is tag 1 ({@code kTypeValue}), key, value; a delete is tag 0 ({@code kTypeDeletion}), key. RocksDB
 * checks the count against the records when it writes and refuses a batch whose records do not parse, so an encoding
 * error shows as a failed write, not as stored garbage. {@code RocksBatchEncodingTest} compares these bytes with
 * what RocksJava's own {@code put}/{@code delete} build.
 */
final class RocksBatchEncoding {
    private static final int HEADER_BYTES = 12;
    private static final int COUNT_OFFSET = 8;
    private static final byte TYPE_DELETION = 0;
    private static final byte TYPE_VALUE = 1;

    private RocksBatchEncoding() {
    }

    static byte[] encode(WriteBatch batch) {
        int length = HEADER_BYTES;
        for (WriteBatch.Operation operation : batch.operationsView()) {
            length += 1 + sliceLength(operation.key());
            if (operation instanceof WriteBatch.Put put) {
                length += sliceLength(put.value());
            }
        }
        byte[] encoded = new byte[length];
        int count = batch.size();
        for (int i = 0; i < Integer.BYTES; i++) {
            encoded[COUNT_OFFSET + i] = (byte) (count >>> (8 * i));
        }
        int position = HEADER_BYTES;
        for (WriteBatch.Operation operation : batch.operationsView()) {
            if (operation instanceof WriteBatch.Put put) {
                encoded[position++] = TYPE_VALUE;
                position = putSlice(encoded, position, put.key());
                position = putSlice(encoded, position, put.value());
            } else {
                encoded[position++] = TYPE_DELETION;
                position = putSlice(encoded, position, operation.key());
            }
        }
        return encoded;
    }

    private static int sliceLength(byte[] bytes) {
        return varint32Length(bytes.length) + bytes.length;
    }

    private static int varint32Length(int value) {
        int length = 1;
        while ((value & ~0x7F) != 0) {
            value >>>= 7;
            length++;
        }
        return length;
    }

    private static int putSlice(byte[] target, int position, byte[] bytes) {
        int value = bytes.length;
        while ((value & ~0x7F) != 0) {
            target[position++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        target[position++] = (byte) value;
        System.arraycopy(bytes, 0, target, position, bytes.length);
        return position + bytes.length;
    }
}
