package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How an OSD lays objects out on its disk ({@code osd.storage.layout}): by each file's replica role ({@link
 * RoleLayoutStorage}, the default: FAST's log on a chain's tail, the conventional layout elsewhere), or one layout for
 * every file: the conventional layout (one file per object, {@link ObjectStore}; FAST's head and middle) or the
 * log-structured one ({@link LogStructuredStore}; FAST's tail, where random writes must reach the disk as sequential
 * appends). All implement {@link ObjectStorage}, so the storage stage does not know which it runs on.
 *
 * <p>All three keep file metadata under the same keys in {@code <root>/metadata} and the log under {@code
 * <root>/log}, so {@code role} reads a folder written with either single layout; {@code conventional} does not see
 * objects in a log, nor {@code log} objects in files.
 */
public enum StorageLayout {
    ROLE,
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
        return switch (this) {
            case ROLE -> RoleLayoutStorage.open(root, device, logOptions, openObjectFilesMax);
            case LOG -> LogStructuredStore.open(root, device, logOptions);
            case CONVENTIONAL -> ObjectStore.open(root, device, false, openObjectFilesMax);
        };
    }

    /** The conventional layout (object files) of a storage this opened; null when it keeps none. */
    public static ObjectStore conventionalOf(ObjectStorage storage) {
        if (storage instanceof ObjectStore conventional) {
            return conventional;
        }
        return storage instanceof RoleLayoutStorage byRole ? byRole.conventional() : null;
    }

    /** The log of a storage this opened, for its compactor; null when it keeps none. */
    public static LogStructuredStore logOf(ObjectStorage storage) {
        if (storage instanceof LogStructuredStore log) {
            return log;
        }
        return storage instanceof RoleLayoutStorage byRole ? byRole.log() : null;
    }
}
