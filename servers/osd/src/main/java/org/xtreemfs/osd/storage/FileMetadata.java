package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * What this OSD knows about one file: the file size it implies (the largest end offset it stored since the
 * last truncate, or the size of that truncate, whichever is larger) and the newest truncate epoch it saw.
 * The rules of how writes and truncates change it live here, once, for every storage layout.
 */
public record FileMetadata(long sizeBytes, int truncateEpoch) {

    public static final FileMetadata EMPTY = new FileMetadata(0, 0);

    public FileMetadata {
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("file size must not be negative: " + sizeBytes);
        }
    }

    /**
     * After a write of {@code lengthBytes} ending at file offset {@code endOffsetBytes} under a capability of
     * {@code epoch}: the size grows to the end (an empty write changes no size), the epoch never decreases.
     */
    public FileMetadata afterWrite(long endOffsetBytes, long lengthBytes, int epoch) {
        return new FileMetadata(Math.max(sizeBytes, lengthBytes == 0 ? 0 : endOffsetBytes), newerEpoch(epoch));
    }

    /** After a truncate to {@code newSizeBytes} under {@code epoch}: exactly that size, the epoch never decreases. */
    public FileMetadata afterTruncate(long newSizeBytes, int epoch) {
        return new FileMetadata(newSizeBytes, newerEpoch(epoch));
    }

    /**
     * The record's equality, written out: the generated one goes through an invokedynamic bootstrap whose method
     * handles the JIT inlined into every write (ObjectStore.write compares the metadata before and after each write).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof FileMetadata metadata && sizeBytes == metadata.sizeBytes
                && truncateEpoch == metadata.truncateEpoch;
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(sizeBytes) + truncateEpoch;
    }

    private int newerEpoch(int epoch) {
        return Integer.compareUnsigned(epoch, truncateEpoch) > 0 ? epoch : truncateEpoch;
    }

    /** The file's metadata as stored in {@code store} by any layout; {@link #EMPTY} when none is stored. */
    static FileMetadata load(KvStore store, String fileId) throws IOException {
        Optional<byte[]> stored;
        try {
            stored = store.get(key(fileId));
        } catch (KvException e) {
            throw new IOException("cannot read the metadata of file " + fileId + ": " + e.getMessage(), e);
        }
        if (stored.isEmpty()) {
            return EMPTY;
        }
        try {
            return decode(new String(stored.get(), StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt metadata of file " + fileId + ": " + e.getMessage(), e);
        }
    }

    /** Adds storing this as the file's metadata to {@code batch}. */
    WriteBatch putInto(WriteBatch batch, String fileId) {
        return batch.put(key(fileId), encode().getBytes(StandardCharsets.US_ASCII));
    }

    /** The key of a file's metadata: its id (text ids never start with the NUL of other keys' prefixes). */
    static byte[] key(String fileId) {
        return fileId.getBytes(StandardCharsets.UTF_8);
    }

    /** The stored value: "sizeBytes truncateEpoch". */
    String encode() {
        return sizeBytes + " " + Integer.toUnsignedString(truncateEpoch) + "\n";
    }

    static FileMetadata decode(String text) {
        String[] fields = text.trim().split(" ");
        if (fields.length != 2) {
            throw new IllegalArgumentException("file metadata must be \"size epoch\", got \"" + text.trim() + "\"");
        }
        return new FileMetadata(Long.parseLong(fields[0]), Integer.parseUnsignedInt(fields[1]));
    }
}
