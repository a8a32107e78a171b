package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * What the storage stage needs from an OSD's object storage, whatever its on-disk layout
 * ({@link StorageLayout}): the conventional layout ({@link ObjectStore}, one file per object) or the log-structured
 * one ({@link LogStructuredStore}, appends in write order plus an index), the layout of a FAST chain's tail.
 *
 * <p>Invariants every implementation keeps: operations on one file are never run concurrently by the caller (the
 * storage stage orders them by file id), operations on different files may be; what a synced write, {@link #fsync},
 * {@link #truncate} and a {@link Durability#SYNC} {@link #deleteFile} acknowledged survives a crash (kill -9 and
 * power loss); reads return exactly the bytes the last acknowledged writes and truncates left. File size and epoch
 * follow the same rules in every layout ({@link FileMetadata#afterWrite}, {@link FileMetadata#afterTruncate}) and
 * are kept under the file id in {@link #metadataStore()}.
 */
public interface ObjectStorage extends AutoCloseable {

    /** The OSD's object folder. */
    Path root();

    /**
     * The stored bytes of [offset, offset+length) of an object, read into {@code target} from its position (it
     * must have {@code length} bytes remaining): fewer (possibly none) when the object is missing or its stored
     * data ends earlier; holes inside the stored range read as zeros. Returns how many bytes were stored.
     */
    int read(String fileId, StripeLayout layout, long objectNumber, int offset, int length, ByteBuffer target)
            throws IOException;

    /**
     * The stored bytes of [offset, offset+length) of an object left in its file for the transport to send from there
     * ({@link ObjectRegion}), or null when this read is to go through {@link #read} (a storage or a read that cannot
     * keep its bytes in a file: this is an optimisation, never required). The caller releases a region exactly once.
     */
    default ObjectRegion readRegion(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
            throws IOException {
        return null;
    }

    /** As {@link #read(String, StripeLayout, long, int, int, ByteBuffer)}, into a new array of the stored length. */
    default byte[] read(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        int read = read(fileId, layout, objectNumber, offset, length, buffer);
        return read == length ? buffer.array() : Arrays.copyOf(buffer.array(), read);
    }

    /**
     * Writes {@code data} at {@code offset} within an object (bytes skipped over read as zeros) and grows the
     * recorded file size when the write ends beyond it; durable before it returns when {@code sync}.
     *
     * @param truncateEpoch the epoch of the caller's capability; the recorded epoch never decreases
     */
    WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
            int truncateEpoch, boolean sync) throws IOException;

    /**
     * Sets the file's size to {@code newSizeBytes} as far as this OSD's objects go: drops the objects wholly beyond
     * it, cuts the one holding the new last byte, and, when this OSD holds that object, extends it (as a hole) to
     * end exactly at the new size. Records the size and the epoch durably.
     */
    FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
            throws IOException;

    /** Makes every write of the file acknowledged so far, and its metadata, durable. */
    void fsync(String fileId) throws IOException;

    /** The recorded size and epoch; {@link FileMetadata#EMPTY} for a file this OSD never stored. */
    FileMetadata metadata(String fileId) throws IOException;

    /** Object numbers stored for the file, ascending. */
    List<Long> storedObjects(String fileId) throws IOException;

    /** Whether any object of the file is stored here. */
    boolean exists(String fileId);

    /** Whether any object or metadata of the file is stored here (e.g. false on the unused stripe positions). */
    default boolean holdsAnything(String fileId) throws IOException {
        return exists(fileId) || !metadata(fileId).equals(FileMetadata.EMPTY);
    }

    /** Removes every object and the metadata of the file, durably; idempotent. */
    default void deleteFile(String fileId) throws IOException {
        deleteFile(fileId, new WriteBatch(), Durability.SYNC);
    }

    /**
     * Removes every object of the file, then deletes its metadata together with {@code together} in one atomic
     * batch of the given durability; idempotent. The deletion queue passes its entry's removal here: buffered is
     * enough, because if a crash loses the batch it loses the entry's removal too, and the deletion simply runs
     * again.
     */
    void deleteFile(String fileId, WriteBatch together, Durability durability) throws IOException;

    /**
     * {@link #deleteFile} of files that have no object here: the caller found {@link #exists} false for each and runs
     * no other work of them, so only their metadata is left. {@code together} is written no earlier than their
     * metadata's removal (a crash in between leaves the deletion queue's entries, and the deletions run again). This
     * default deletes file after file and then writes {@code together}; a layout whose files' metadata lives in one
     * store removes all of it and {@code together} in ONE atomic batch (the deletion scheduler's due batch of
     * never-written files: one write instead of one per file).
     */
    default void deleteFilesWithoutObjects(List<String> fileIds, WriteBatch together, Durability durability)
            throws IOException {
        for (String fileId : fileIds) {
            deleteFile(fileId, new WriteBatch(), durability);
        }
        try {
            metadataStore().write(together, durability);
        } catch (KvException e) {
            throw new IOException("cannot write the removals of " + fileIds.size() + " deleted files: "
                    + e.getMessage(), e);
        }
    }

    /** Looks at one stored file; false stops the walk. */
    @FunctionalInterface
    interface StoredFileVisitor {
        boolean visit(String fileId) throws IOException;
    }

    /**
     * Calls {@code visitor} once for every file that has objects stored here (in no particular order) until it
     * returns false, holding no list of the files that grows with their number; returns whether it saw them all.
     */
    boolean forEachStoredFile(StoredFileVisitor visitor) throws IOException;

    /**
     * This storage as a request sees it whose XLoc gives this OSD {@code role} for the file; the same storage for
     * a single layout. {@link RoleLayoutStorage} places a new file by it (the tail's in the log).
     */
    default ObjectStorage forRole(ReplicaRole role) {
        return this;
    }

    /** The store of file metadata; the deletion queue keeps its entries there too (one WAL, one fsync). */
    KvStore metadataStore();

    @Override
    void close();

    /** What a write changed: whether the recorded size grew, and the metadata after it. */
    record WriteOutcome(boolean sizeGrew, FileMetadata metadata) {}
}
