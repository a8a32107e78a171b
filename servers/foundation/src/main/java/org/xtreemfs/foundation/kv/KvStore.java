package org.xtreemfs.foundation.kv;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An ordered map from byte keys to byte values; the seam between servers and RocksDB. All methods
 * are thread-safe and throw {@link KvException} on failure, including use after {@link #close()}.
 * Keys sort as unsigned bytes. Arrays passed in are copied; arrays returned belong to the caller.
 */
public interface KvStore extends AutoCloseable {

    Optional<byte[]> get(byte[] key);

    /**
     * {@link #get} for a key the caller expects to be absent (the name a create is about to take): the same answer,
     * cheaper when the key is absent and dearer when it is present. {@link RocksKvStore} asks its bloom filters and
     * memtables first ({@code keyMayExist}): RocksJava's get throws and catches a C++ exception for every missing
     * key, which made an absent key cost about twice a present one (tests/bench/fuse/README.md, session 14). This
     * default is {@link #get}.
     */
    default Optional<byte[]> getExpectedAbsent(byte[] key) {
        return get(key);
    }

    /**
     * The values of {@code keys}, in their order (empty: absent): many point reads known in advance (the inodes of a
     * listing's page) in one call. {@link RocksKvStore} reads them with one MultiGet from one consistent view, one
     * crossing into native code for all keys instead of one per key; {@link InMemoryKvStore} under its monitor. This
     * default reads key by key (no common view), for stores that only wrap another in tests.
     */
    default List<Optional<byte[]>> multiGet(List<byte[]> keys) {
        List<Optional<byte[]>> values = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            values.add(get(key));
        }
        return values;
    }

    /** Same as a one-operation batch with {@link Durability#BUFFERED}. */
    default void put(byte[] key, byte[] value) {
        write(new WriteBatch().put(key, value), Durability.BUFFERED);
    }

    /** Same as a one-operation batch with {@link Durability#BUFFERED}; absent keys are fine. */
    default void delete(byte[] key) {
        write(new WriteBatch().delete(key), Durability.BUFFERED);
    }

    /** Applies every operation of the batch or none, in batch order. */
    void write(WriteBatch batch, Durability durability);

    /** An iterator over a consistent view of the range as of this call; close it. */
    KvIterator iterator(KeyRange range);

    /** Up to {@code maxEntries} entries of the range in key order; for paged listings. */
    default List<KvEntry> scan(KeyRange range, int maxEntries) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("maxEntries must not be negative: " + maxEntries);
        }
        List<KvEntry> entries = new ArrayList<>(Math.min(maxEntries, 1024));
        try (KvIterator iterator = iterator(range)) {
            while (entries.size() < maxEntries && iterator.hasNext()) {
                entries.add(iterator.next());
            }
        }
        return entries;
    }

    /** Makes every write that has returned durable against power loss (fsyncs the WAL). */
    void sync();

    /** Moves buffered writes into table files so a restart replays less log; may be slow. */
    void flush();

    /**
     * Writes a consistent copy of the whole store into {@code directory}, which must not exist
     * yet; the matching implementation opens it as a store (for backups and tests).
     */
    void checkpoint(Path directory);

    /** Releases the store and any open iterators; idempotent. */
    @Override
    void close();
}
