package org.xtreemfs.foundation.kv;

import java.nio.file.Path;

/**
 * How a {@link RocksKvStore} is tuned. The block cache and bloom filters are explicit because
 * metadata reads were disk-bound without them.
 *
 * @param directory where the database lives; created if missing
 * @param blockCacheBytes size of the LRU cache of uncompressed table blocks
 * @param bloomFilterBitsPerKey bloom filter size per key; 10 gives about 1% false positives
 * @param writeBufferBytes size of one memtable before it is flushed to a table file
 */
public record RocksKvOptions(Path directory, long blockCacheBytes, int bloomFilterBitsPerKey,
        long writeBufferBytes) {

    public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L << 20;
    public static final int DEFAULT_BLOOM_FILTER_BITS_PER_KEY = 10;
    public static final long DEFAULT_WRITE_BUFFER_BYTES = 32L << 20;

    public RocksKvOptions {
        if (directory == null) {
            throw new IllegalArgumentException("RocksDB directory is missing");
        }
        if (blockCacheBytes < 1 << 20 || bloomFilterBitsPerKey < 1 || writeBufferBytes < 1 << 20) {
            throw new IllegalArgumentException("RocksDB options out of range: " + blockCacheBytes
                    + " cache bytes, " + bloomFilterBitsPerKey + " bloom bits per key, "
                    + writeBufferBytes + " write buffer bytes");
        }
    }

    public static RocksKvOptions defaults(Path directory) {
        return new RocksKvOptions(directory, DEFAULT_BLOCK_CACHE_BYTES,
                DEFAULT_BLOOM_FILTER_BITS_PER_KEY, DEFAULT_WRITE_BUFFER_BYTES);
    }
}
