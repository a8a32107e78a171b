package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * The one place the storage layouts read and change files' {@link FileMetadata} records (size, truncate epoch) in
 * their metadata store, with the records of recently used files kept in memory: a write needs its file's record to
 * know whether the size grew, and reading it from RocksDB on every 4 KiB write (a JNI get and a text parse) was a
 * measurable part of the OSD's CPU per write. One instance per metadata store, shared by every layout on it
 * ({@link RoleLayoutStorage}), so no layout can change a record behind another's memory.
 *
 * <p><b>Invariant:</b> a file's entry in memory equals its record in the store ({@link FileMetadata#EMPTY} when the
 * store has none). It holds because every change of a record goes through here while the caller holds the file's
 * {@link #lockFor lock}: {@link #store} writes the store first and then memory, a batch that carries a record
 * ({@link FileMetadata#putInto}) is followed by {@link #stored} once written, a deleted record or a failed write is
 * {@link #forget forgotten}, and a record missing from memory is loaded under the same lock, so a load never races a
 * change. Durability is unchanged: the store is written exactly when it was before (with the caller's durability);
 * only reads are served from memory. After a restart memory is empty and the store is the authority again.
 *
 * <p>Bounded: at most {@link #CACHED_FILES_MAX} files in memory, the least recently used dropped (read back on demand).
 */
public final class FileMetadataRecords {
    /** About 100 bytes each: a few MiB for files far more than an OSD's open working set. */
    static final int CACHED_FILES_MAX = 65_536;
    private static final int LOCK_STRIPES = 256;

    private final KvStore store;
    /** Chosen by the file id's hash: a shared stripe only costs waiting, never correctness. */
    private final Object[] locks = new Object[LOCK_STRIPES];
    private final Map<String, FileMetadata> cached = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, FileMetadata> eldest) {
            return size() > CACHED_FILES_MAX;
        }
    };

    public FileMetadataRecords(KvStore store) {
        this.store = store;
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    /** The store the records live in. */
    public KvStore store() {
        return store;
    }

    /**
     * The lock a caller holds while it reads a file's record and changes it, and while it creates the file's folder:
     * one read-change-store of a file's record at a time, whichever layout does it.
     */
    public Object lockFor(String fileId) {
        int hash = fileId.hashCode();
        return locks[Math.floorMod(hash ^ (hash >>> 16), locks.length)];
    }

    /** The file's record ({@link FileMetadata#EMPTY} when none is stored), from memory when it is there. */
    public FileMetadata get(String fileId) throws IOException {
        synchronized (cached) {
            FileMetadata known = cached.get(fileId);
            if (known != null) {
                return known;
            }
        }
        synchronized (lockFor(fileId)) {
            // Under the file's lock no change of the record is under way, so what is loaded is current.
            synchronized (cached) {
                FileMetadata known = cached.get(fileId);
                if (known != null) {
                    return known;
                }
            }
            FileMetadata loaded = FileMetadata.load(store, fileId);
            synchronized (cached) {
                cached.put(fileId, loaded);
            }
            return loaded;
        }
    }

    /** Stores the file's record with {@code durability}, then remembers it; the caller holds {@link #lockFor}. */
    public void store(String fileId, FileMetadata metadata, Durability durability) throws IOException {
        try {
            store.write(metadata.putInto(new WriteBatch(), fileId), durability);
        } catch (KvException e) {
            forget(fileId);
            throw new IOException("cannot store the metadata of file " + fileId + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            forget(fileId);
            throw e;
        }
        stored(fileId, metadata);
    }

    /**
     * A batch the caller wrote carried {@code metadata} as the file's record ({@link FileMetadata#putInto}); the
     * caller holds {@link #lockFor} from before it read the record until now.
     */
    public void stored(String fileId, FileMetadata metadata) {
        synchronized (cached) {
            cached.put(fileId, metadata);
        }
    }

    /** Drops the file's entry: its record was deleted, or a write that carried it may have failed. */
    public void forget(String fileId) {
        synchronized (cached) {
            cached.remove(fileId);
        }
    }

    /** Files whose records are in memory (tests, status). */
    int cachedFiles() {
        synchronized (cached) {
            return cached.size();
        }
    }
}
