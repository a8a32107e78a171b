package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How an OSD lays objects out on its disk ({@code osd.storage.layout}): the conventional layout (one file per
 * object, {@link ObjectStore}; FAST's head and middle) or the log-structured one ({@link LogStructuredStore}; FAST's
 * tail, where random writes must reach the disk as sequential appends). Both implement {@link ObjectStorage}, so
 * the storage stage does not know which it runs on.
 *
 * <p>Today the choice is per OSD. For a per-replica choice (an OSD that is the tail of one chain and the head of
 * another) open both on the same metadata store ({@link ObjectStore#ObjectStore(Path,
 * org.xtreemfs.foundation.kv.KvStore)} and {@link LogStructuredStore#open(Path,
 * org.xtreemfs.foundation.kv.KvStore, StorageDevice, LogStructuredStore.Options)}: file metadata keys are the same,
 * the log's index keys have their own prefix) and dispatch each file's operations by the replica role its XLoc gives
 * this OSD; a file keeps one role per OSD for its life on it (a role change is a re-replication).
 */
public enum StorageLayout {
    CONVENTIONAL,
    LOG;

    /** Opens this layout's storage under {@code root} with its own metadata store. */
    public ObjectStorage open(Path root, StorageDevice device, LogStructuredStore.Options logOptions)
            throws IOException {
        return open(root, device, logOptions, ObjectStore.OPEN_OBJECT_FILES_MAX_DEFAULT);
    }

    /** As above; the conventional layout keeps up to {@code openObjectFilesMax} object files open between accesses. */
    public ObjectStorage open(Path root, StorageDevice device, LogStructuredStore.Options logOptions,
            int openObjectFilesMax) throws IOException {
        return this == LOG ? LogStructuredStore.open(root, device, logOptions)
                : ObjectStore.open(root, device, false, openObjectFilesMax);
    }
}
