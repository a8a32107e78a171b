package org.xtreemfs.foundation.kv;

import java.util.Iterator;

/**
 * Entries of a {@link KeyRange} in ascending unsigned key order, as of the iterator's creation.
 * Must be closed (it pins native resources in RocksDB); used by one thread at a time.
 */
public interface KvIterator extends Iterator<KvEntry>, AutoCloseable {

    /** Releases the iterator; idempotent. Does not throw checked exceptions. */
    @Override
    void close();
}
