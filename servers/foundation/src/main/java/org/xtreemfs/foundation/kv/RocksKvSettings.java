package org.xtreemfs.foundation.kv;

import java.nio.file.Path;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

/**
 * The RocksDB tuning settings of one service, declared once under the service's key prefix, e.g.
 * {@code mrc.kv.blockCacheBytes}. Add {@link #schema()} to the service schema with
 * {@link SettingsSchema#plus} and build options with {@link #options}.
 */
public final class RocksKvSettings {

    private final Setting<Long> blockCacheBytes;
    private final Setting<Integer> bloomFilterBitsPerKey;
    private final Setting<Long> writeBufferBytes;

    /** @param keyPrefix the service prefix, e.g. {@code mrc} */
    public RocksKvSettings(String keyPrefix) {
        blockCacheBytes = Setting.byteSize(keyPrefix + ".kv.blockCacheBytes",
                RocksKvOptions.DEFAULT_BLOCK_CACHE_BYTES, 1L << 20, 1L << 40,
                "Size of the RocksDB LRU block cache.");
        bloomFilterBitsPerKey = Setting.integer(keyPrefix + ".kv.bloomFilterBitsPerKey",
                RocksKvOptions.DEFAULT_BLOOM_FILTER_BITS_PER_KEY, 1, 64,
                "Bloom filter bits per key in RocksDB tables (10 is about 1% false positives).");
        writeBufferBytes = Setting.byteSize(keyPrefix + ".kv.writeBufferBytes",
                RocksKvOptions.DEFAULT_WRITE_BUFFER_BYTES, 1L << 20, 1L << 32,
                "Size of one RocksDB memtable before it is flushed to disk.");
    }

    public SettingsSchema schema() {
        return SettingsSchema.of("kv", blockCacheBytes, bloomFilterBitsPerKey, writeBufferBytes);
    }

    /**
     * Options for a database in {@code directory},
     * from settings validated by a schema that includes {@link #schema()}.
     */
    public RocksKvOptions options(Settings settings, Path directory) {
        return new RocksKvOptions(directory, settings.get(blockCacheBytes),
                settings.get(bloomFilterBitsPerKey), settings.get(writeBufferBytes));
    }
}
