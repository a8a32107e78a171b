package org.xtreemfs.osd.replication;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.RpcException;

/**
 * The one authority on "is this request's XLoc version current on this OSD": the newest XLoc version this OSD has seen
 * for each file. A chain changes only under a new XLoc version (a member removed by the MRC's re-formation, a replica
 * added, filled or removed; common.proto XLocSet), so a request carrying an older version comes from a sender that
 * holds a chain that is no longer current; it is refused with <b>XLOC_OUTDATED</b>, which both clients follow (they
 * ask the MRC for the file's current XLoc and send again), as does a predecessor's forward (its refusal passes back
 * to the client unchanged).
 *
 * <p>Who raises it: every request of a file (reads too) that carries a newer version ({@link #check}), and the
 * MRC's answer when this OSD confirms a file's XLoc after a start or a heartbeat gap ({@link #confirmed}, from
 * {@link XLocConfirmations}): then a request whose XLoc names this OSD but which the MRC has since re-formed without it is
 * older than the MRC's version, so an OSD that comes back after it was removed never serves its stale copy. The
 * storage stage checks on the file's lane, where updates are applied in order, so a fill's read of the size at its
 * source (which raises the source's version) lets no old-chain update pass after it.
 *
 * <p>Durable: a raise is written to the metadata store with a synced WAL before the request that raised it goes on,
 * so a restarted OSD does not take old-version requests again. Version 1 (every file's first) is not stored. In
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
     * Checks a request of the file carrying XLoc {@code version} (0, an XLoc without a version, counts as 1): refused
     * with XLOC_OUTDATED when this OSD has seen a newer version of the file; otherwise the file's version is raised to
     * it. {@code kind}, the request's class, names it in the refusal.
     */
    public void check(String fileId, int version, Class<?> kind) throws RpcException {
        int carried = Math.max(1, version);
        int newest = raise(fileId, carried);
        if (Integer.compareUnsigned(carried, newest) < 0) {
            // The kind's name only here: Class.getSimpleName on every request was part of the storage path's code.
            throw RpcException.xlocOutdated(kind.getSimpleName() + " of file " + fileId + " carries XLoc version "
                    + carried + ", older than version " + newest + " this OSD has seen: the file's chain changed; fetch the"
                    + " current XLoc");
        }
    }

    /** The MRC confirmed {@code version} as the file's current XLoc version: raises the file's version to it. */
    public void confirmed(String fileId, int version) {
        raise(fileId, Math.max(1, version));
    }

    /** The newest version seen for the file (1 when none is recorded). */
    public int newest(String fileId) {
        synchronized (cached) {
            return cachedOrLoaded(fileId);
        }
    }

    /** Called under the lock. Not computeIfAbsent: its bound method reference was allocated on every request. */
    private int cachedOrLoaded(String fileId) {
        Integer newest = cached.get(fileId);
        if (newest == null) {
            newest = load(fileId);
            cached.put(fileId, newest);
        }
        return newest;
    }

    /** Raises the file's version to {@code version} (stored before it returns); returns the newest afterwards. */
    private int raise(String fileId, int version) {
        synchronized (cached) {
            int newest = cachedOrLoaded(fileId);
            if (Integer.compareUnsigned(version, newest) <= 0) {
                return newest;
            }
            store.write(new WriteBatch().put(key(fileId), Integer.toString(version).getBytes(StandardCharsets.US_ASCII)),
                    Durability.SYNC);
            cached.put(fileId, version);
            return version;
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
