package org.xtreemfs.osd.replication;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;

/**
 * The newest XLoc version this OSD has seen for each file, the fence that keeps a changed chain whole: every request
 * of a file (reads too) raises it to the version its XLoc carries, and an update carrying an older version is
 * refused with ERRNO ESTALE, so a client (or a predecessor) still holding the old chain cannot send an update past a
 * member that joined (the member's fill reads at its source raise the source's fence before they copy) or to a member
 * that was removed. The storage stage checks it on the file's lane, where the update is applied.
 *
 * <p>Durable: a raise is written to the metadata store with a synced WAL before the request that raised it goes on,
 * so a restarted OSD does not take old-version updates again. Version 1 (every file's first) is not stored. In
 * memory, at most {@link #CACHED_FILES_MAX} files (least recently used dropped, read back from the store on demand).
 * The key is removed with the file's objects ({@link #removeWith}).
 */
public final class XLocVersions {
    static final byte[] KEY_PREFIX = {0, 'X', 'L', 'V', 0};
    static final int CACHED_FILES_MAX = 65_536;

    private final KvStore store;
    private final Map<String, Integer> cached = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > CACHED_FILES_MAX;
        }
    };

    public XLocVersions(KvStore store) {
        this.store = store;
    }

    /**
     * Records that a request of the file carries XLoc {@code version} and returns the newest version seen for it
     * (at least {@code version}). An XLoc without a version (0) counts as version 1.
     */
    public int observe(String fileId, int version) {
        int carried = Math.max(1, version);
        synchronized (cached) {
            int newest = cached.computeIfAbsent(fileId, this::load);
            if (Integer.compareUnsigned(carried, newest) <= 0) {
                return newest;
            }
            store.write(new WriteBatch().put(key(fileId), Integer.toString(carried).getBytes(StandardCharsets.US_ASCII)),
                    Durability.SYNC);
            cached.put(fileId, carried);
            return carried;
        }
    }

    /**
     * Refuses an update whose XLoc is older than the newest this OSD has seen for the file; otherwise raises the
     * fence to the update's version.
     */
    public void checkUpdate(String fileId, int version, String kind) throws RpcException {
        int newest = observe(fileId, version);
        if (Integer.compareUnsigned(Math.max(1, version), newest) < 0) {
            throw RpcException.errno(Errno.ESTALE, kind + " of file " + fileId + " carries XLoc version " + version
                    + ", older than version " + newest + " this OSD has seen: the file's chain changed; open the file"
                    + " again for its current XLoc");
        }
    }

    /** Adds the removal of the file's version to a deletion's batch (the file is gone from this OSD). */
    public WriteBatch removeWith(WriteBatch batch, String fileId) {
        synchronized (cached) {
            cached.remove(fileId);
        }
        return batch.delete(key(fileId));
    }

    private int load(String fileId) {
        return store.get(key(fileId)).map(bytes -> Integer.parseInt(new String(bytes, StandardCharsets.US_ASCII)))
                .orElse(1);
    }

    private static byte[] key(String fileId) {
        byte[] id = fileId.getBytes(StandardCharsets.UTF_8);
        byte[] key = Arrays.copyOf(KEY_PREFIX, KEY_PREFIX.length + id.length);
        System.arraycopy(id, 0, key, KEY_PREFIX.length, id.length);
        return key;
    }
}
