package org.xtreemfs.client.cache;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A bounded map from normalised path to a value (getattr results) that is reused for {@code ttlMs}. Local
 * changes invalidate entries explicitly; remote changes become visible after the TTL at the latest. When full,
 * expired entries are dropped first and, if still full, the whole cache is cleared (cheap and bounded).
 */
public final class MetadataCache<V> {
    private record Entry<V>(V value, long expiresNanos) {}

    private final long ttlNanos;
    private final int entriesMax;
    private final LongSupplier monotonicNanos;
    private final Map<String, Entry<V>> entries = new ConcurrentHashMap<>();

    public MetadataCache(long ttlMs, int entriesMax, LongSupplier monotonicNanos) {
        if (ttlMs < 0 || entriesMax <= 0) {
            throw new IllegalArgumentException("invalid cache bounds: ttl " + ttlMs + " ms, " + entriesMax + " entries");
        }
        this.ttlNanos = ttlMs * 1_000_000L;
        this.entriesMax = entriesMax;
        this.monotonicNanos = monotonicNanos;
    }

    /** The cached value, or null when absent or expired. */
    public V get(String path) {
        Entry<V> entry = entries.get(path);
        if (entry == null) {
            return null;
        }
        if (entry.expiresNanos() - monotonicNanos.getAsLong() <= 0) {
            entries.remove(path, entry);
            return null;
        }
        return entry.value();
    }

    public void put(String path, V value) {
        if (ttlNanos == 0) {
            return;
        }
        if (entries.size() >= entriesMax && !entries.containsKey(path)) {
            dropExpired();
            if (entries.size() >= entriesMax) {
                entries.clear();
            }
        }
        entries.put(path, new Entry<>(value, monotonicNanos.getAsLong() + ttlNanos));
    }

    public void invalidate(String path) {
        entries.remove(path);
    }

    /** Drops {@code path} and everything below it (after a rename or removal of a directory). */
    public void invalidateTree(String path) {
        String prefix = path.endsWith("/") ? path : path + "/";
        entries.keySet().removeIf(key -> key.equals(path) || key.startsWith(prefix));
    }

    public void clear() {
        entries.clear();
    }

    public int size() {
        return entries.size();
    }

    private void dropExpired() {
        long now = monotonicNanos.getAsLong();
        for (Iterator<Entry<V>> iterator = entries.values().iterator(); iterator.hasNext(); ) {
            if (iterator.next().expiresNanos() - now <= 0) {
                iterator.remove();
            }
        }
    }
}
