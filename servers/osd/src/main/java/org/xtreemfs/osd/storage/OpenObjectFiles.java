package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded cache of open object files, so that a read or write of an object that was accessed recently costs a
 * pread/pwrite and no open, close or path lookups (profiled: opening and closing the object file on every access was
 * the largest storage cost of a 4 KiB request).
 *
 * <p>Invariants: at most {@code capacity} channels are kept open while unused (a channel in use by a caller stays
 * open until its last user releases it, so at most capacity + concurrent accesses are open); a channel is closed
 * exactly once, never while a caller holds it; {@link #forget} drops every channel of a file, so after a deletion or
 * truncation no later access reaches an unlinked or stale file through the cache. Eviction is least recently used.
 * Thread-safe; the lock is held only for map updates, never while opening or closing a file.
 *
 * <p>An object may have two channels here, its ordinary one and an O_DIRECT one ({@link #acquireDirect}) for the
 * store's large aligned writes; both count against the capacity and {@link #forget} drops both. Which accesses may
 * use the O_DIRECT channel is the store's rule (ObjectStore#writesDirect), not this cache's.
 */
final class OpenObjectFiles implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenObjectFiles.class);

    /** One cached channel and its users; fields guarded by the cache's lock. */
    static final class Handle {
        final ObjectKey key;
        final FileChannel channel;
        int users;
        /** No longer in the map: closed when the last user releases it. */
        boolean dropped;

        Handle(ObjectKey key, FileChannel channel) {
            this.key = key;
            this.channel = channel;
        }

        FileChannel channel() {
            return channel;
        }
    }

    /** {@code direct}: the object's O_DIRECT channel, cached beside its ordinary one. */
    record ObjectKey(String fileId, long objectNumber, boolean direct) {
        /*
         * Written out rather than the record's generated equals and hashCode: every object read or write looks its
         * key up, and the generated ones go through an invokedynamic method-handle chain that C1, the OSD's
         * only JIT until session 13 and its first tier since, does not inline (bin/xtreemfs-osd); in 4 KiB random reads that chain took more of the OSD's CPU samples than
         * the whole fair policy (async-profiler, tests/bench/README.md, "QoS stage overhead").
         */
        @Override
        public boolean equals(Object other) {
            return this == other || other instanceof ObjectKey key && objectNumber == key.objectNumber
                    && direct == key.direct && Objects.equals(fileId, key.fileId);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * Objects.hashCode(fileId) + Long.hashCode(objectNumber)) + (direct ? 1 : 0);
        }
    }

    /** Opens an object's file; throws when it cannot (e.g. NoSuchFileException for a read of a missing object). */
    @FunctionalInterface
    interface Opener {
        FileChannel open() throws IOException;
    }

    private final int capacity;
    /** Access order: the eldest entry is the least recently used. */
    private final LinkedHashMap<ObjectKey, Handle> handles = new LinkedHashMap<>(16, 0.75f, true);
    /**
     * The keys of each file in {@link #handles} (the same entries, by file): {@link #forget} visits only the file's own
     * channels. Scanning every cached channel made a deletion cost O(capacity) under the lock (profiled:
     * String.equals of the file ids was 3 % of an OSD's CPU during unlinks of files it never held).
     */
    private final Map<String, Set<ObjectKey>> keysByFile = new HashMap<>();
    private long opened;
    private long hits;

    OpenObjectFiles(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("open object files capacity must be >= 0, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * The open channel of an object, opened with {@code opener} when none is cached; the caller must
     * {@link #release} it exactly once. With capacity 0 every call opens and every release closes.
     */
    Handle acquire(String fileId, long objectNumber, Opener opener) throws IOException {
        return acquire(new ObjectKey(fileId, objectNumber, false), opener);
    }

    /**
     * As {@link #acquire(String, long, Opener)} for the object's O_DIRECT channel, which {@code opener} opens with
     * O_DIRECT: a separate entry beside its ordinary channel, so neither is ever handed out for the other's use.
     */
    Handle acquireDirect(String fileId, long objectNumber, Opener opener) throws IOException {
        return acquire(new ObjectKey(fileId, objectNumber, true), opener);
    }

    private Handle acquire(ObjectKey key, Opener opener) throws IOException {
        synchronized (this) {
            Handle cached = handles.get(key);
            if (cached != null) {
                cached.users++;
                hits++;
                return cached;
            }
        }
        return openAndCache(key, opener);
    }

    /**
     * {@link #acquire}'s miss: opens and caches. Its own method so that the JIT compiles the cached path of the many
     * small accesses of one object without the open (rare there), and the open once where it is common (a new object
     * per MiB of a sequential stream).
     */
    private Handle openAndCache(ObjectKey key, Opener opener) throws IOException {
        FileChannel channel = opener.open();
        Handle fresh = new Handle(key, channel);
        fresh.users = 1;
        List<Handle> toClose = new ArrayList<>(1);
        Handle result;
        synchronized (this) {
            opened++;
            Handle raced = handles.get(key);
            if (raced != null) {
                // Another caller opened it meanwhile: use theirs, close ours.
                raced.users++;
                fresh.dropped = true;
                fresh.users = 0;
                toClose.add(fresh);
                result = raced;
            } else if (capacity == 0) {
                fresh.dropped = true;
                result = fresh;
            } else {
                handles.put(key, fresh);
                keysByFile.computeIfAbsent(key.fileId(), file -> new HashSet<>()).add(key);
                result = fresh;
                evictLocked(toClose);
            }
        }
        closeAll(toClose);
        return result;
    }

    /**
     * A cached channel of the object for one use (its ordinary one, else its O_DIRECT one), without opening any: null
     * when neither is cached. The caller must {@link #release} it exactly once.
     */
    synchronized Handle acquireCached(String fileId, long objectNumber) {
        Handle cached = handles.get(new ObjectKey(fileId, objectNumber, false));
        if (cached == null) {
            cached = handles.get(new ObjectKey(fileId, objectNumber, true));
        }
        if (cached != null) {
            cached.users++;
        }
        return cached;
    }

    /** Ends one use of a handle from {@link #acquire}; closes it if it was dropped and this was the last use. */
    void release(Handle handle) {
        boolean close;
        synchronized (this) {
            if (handle.users <= 0) {
                throw new IllegalStateException("open object file of " + handle.key + " released more often than"
                        + " acquired");
            }
            handle.users--;
            close = handle.dropped && handle.users == 0;
        }
        if (close) {
            closeQuietly(handle);
        }
    }

    /** Drops every cached channel of the file (closed now if unused, else at their last release). */
    void forget(String fileId) {
        List<Handle> toClose = new ArrayList<>();
        synchronized (this) {
            Set<ObjectKey> keys = keysByFile.remove(fileId);
            if (keys != null) {
                for (ObjectKey key : keys) {
                    drop(handles.remove(key), toClose);
                }
            }
        }
        closeAll(toClose);
    }

    /**
     * Whether a channel of the object (ordinary or O_DIRECT) is in the cache: then its file exists (a deletion or
     * truncation {@link #forget}s the file's channels first). Does not count as a use for the eviction order.
     */
    synchronized boolean contains(String fileId, long objectNumber) {
        return handles.containsKey(new ObjectKey(fileId, objectNumber, false))
                || handles.containsKey(new ObjectKey(fileId, objectNumber, true));
    }

    /**
     * Whether a channel of any object of the file is in the cache: then the file's folder exists here (its object file
     * does, see {@link #contains}). No file system access; used to skip a stat of the folder per new object.
     */
    synchronized boolean holdsFile(String fileId) {
        return keysByFile.containsKey(fileId);
    }

    /** Channels in the cache (in use or not). */
    synchronized int size() {
        return handles.size();
    }

    /** Files opened since start, and accesses served by a cached channel. */
    synchronized long openedCount() {
        return opened;
    }

    synchronized long hitCount() {
        return hits;
    }

    @Override
    public void close() {
        List<Handle> toClose = new ArrayList<>();
        synchronized (this) {
            for (Handle handle : handles.values()) {
                drop(handle, toClose);
            }
            handles.clear();
            keysByFile.clear();
        }
        closeAll(toClose);
    }

    private void evictLocked(List<Handle> toClose) {
        Iterator<Handle> eldest = handles.values().iterator();
        while (handles.size() > capacity && eldest.hasNext()) {
            Handle handle = eldest.next();
            eldest.remove();
            Set<ObjectKey> keys = keysByFile.get(handle.key.fileId());
            keys.remove(handle.key);
            if (keys.isEmpty()) {
                keysByFile.remove(handle.key.fileId());
            }
            drop(handle, toClose);
        }
    }

    private static void drop(Handle handle, List<Handle> toClose) {
        handle.dropped = true;
        if (handle.users == 0) {
            toClose.add(handle);
        }
    }

    private static void closeAll(List<Handle> handles) {
        for (Handle handle : handles) {
            closeQuietly(handle);
        }
    }

    private static void closeQuietly(Handle handle) {
        try {
            handle.channel.close();
        } catch (IOException e) {
            LOG.warn("closing the object file of {} failed", handle.key, e);
        }
    }
}
