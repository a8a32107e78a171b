package org.xtreemfs.foundation.kv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteOptions;
import org.xtreemfs.foundation.files.PrivateFiles;

/**
 * {@link KvStore} on RocksDB in one directory, default column family only: callers separate record
 * kinds by key prefix, so a {@link WriteBatch} spans kinds with no extra machinery and
 * {@link InMemoryKvStore} can mirror it exactly. The WAL is always on.
 *
 * <p>Every native call happens under the read side of a lock whose write side {@link #close()}
 * takes, because touching a closed RocksDB handle crashes the JVM instead of throwing.
 */
public final class RocksKvStore implements KvStore {

    static {
        RocksDB.loadLibrary();
    }

    /** The memtable's whole-key bloom filter, as a fraction of the write buffer (32 MiB: 655 KiB). */
    static final double MEMTABLE_BLOOM_SIZE_RATIO = 0.02;

    private final Path directory;
    private final RocksDB db;
    private final Options options;
    private final LRUCache blockCache;
    private final BloomFilter bloomFilter;
    private final WriteOptions bufferedWrites;
    private final WriteOptions syncedWrites;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private final Set<RocksKvIterator> openIterators =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private boolean closed;
    private final LongAdder gets = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LongAdder syncedBatches = new LongAdder();
    private final LongAdder iterators = new LongAdder();

    /**
     * Calls into RocksDB since open, for status pages: a server's cost per operation in store calls is these
     * counts' growth over its operations (tests/bench/fuse/README.md, issue 10's profiles).
     */
    public record Counts(long gets, long batches, long syncedBatches, long iterators) {}

    private RocksKvStore(Path directory, RocksDB db, Options options, LRUCache blockCache,
            BloomFilter bloomFilter) {
        this.directory = directory;
        this.db = db;
        this.options = options;
        this.blockCache = blockCache;
        this.bloomFilter = bloomFilter;
        this.bufferedWrites = new WriteOptions().setSync(false).setDisableWAL(false);
        this.syncedWrites = new WriteOptions().setSync(true).setDisableWAL(false);
    }

    /**
     * Opens or creates the database.
     *
     * @throws KvException naming the directory, e.g. when another process holds its lock
     */
    public static RocksKvStore open(RocksKvOptions settings) {
        Path directory = settings.directory();
        LRUCache blockCache = new LRUCache(settings.blockCacheBytes());
        BloomFilter bloomFilter = new BloomFilter(settings.bloomFilterBitsPerKey(), false);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setFilterPolicy(bloomFilter)
                .setCacheIndexAndFilterBlocks(true)
                .setPinL0FilterAndIndexBlocksInCache(true);
        Options options = new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(settings.writeBufferBytes())
                // A bloom filter of whole keys per memtable (2 % of its size): an absent key's look-up skips the
                // memtable's skip list, which getExpectedAbsent's keyMayExist relies on to be cheap.
                .setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_SIZE_RATIO)
                .setMemtableWholeKeyFiltering(true)
                .setTableFormatConfig(table);
        try {
            // RocksDB creates its files under the umask; the 0700 folder keeps them private anyway.
            PrivateFiles.folder(directory); // servers checked it already, naming their setting (dataFolder)
            RocksDB db = RocksDB.open(options, directory.toString());
            return new RocksKvStore(directory, db, options, blockCache, bloomFilter);
        } catch (RocksDBException | IOException e) {
            options.close();
            bloomFilter.close();
            blockCache.close();
            throw new KvException("cannot open RocksDB in " + directory + ": " + e.getMessage(), e);
        }
    }

    public Path directory() {
        return directory;
    }

    /**
     * The calls into RocksDB since open (gets: keys read by point reads, each key of a multi-get counted; batches:
     * unsynced ones; syncedBatches: those that fsynced the log).
     */
    public Counts counts() {
        return new Counts(gets.sum(), batches.sum(), syncedBatches.sum(), iterators.sum());
    }

    @Override
    public Optional<byte[]> get(byte[] key) {
        closeLock.readLock().lock();
        try {
            checkOpen();
            gets.increment();
            return Optional.ofNullable(db.get(key));
        } catch (RocksDBException e) {
            throw failure("get " + Keys.toDebugString(key), e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    /**
     * {@code keyMayExist} first: it answers from the memtables' and the cached tables' bloom filters without the C++
     * exception that RocksJava's get throws and catches for a missing key; only a key it cannot rule out costs a get
     * as well. It is asked without a value holder: with one, RocksJava looks up a class over JNI and returns the
     * value found in memory in a new object array on every call, which cost an absent key more than the holder
     * saves a present one (rare here). In a loop (100,000 keys in the memtable, C1, memtable bloom filter): an absent
     * key 0.8-1.2 µs against 2.0-2.6 with the holder and 3.6-4.3 with get; a present one 3.8-5.2 against 3.1-4.1
     * and 2.4-3.0 (tests/bench/fuse/README.md, session 14, "What is left"; session 15 for the profile).
     */
    @Override
    public Optional<byte[]> getExpectedAbsent(byte[] key) {
        closeLock.readLock().lock();
        try {
            checkOpen();
            gets.increment();
            if (!db.keyMayExist(key, null)) {
                return Optional.empty();
            }
            return Optional.ofNullable(db.get(key));
        } catch (RocksDBException e) {
            throw failure("get " + Keys.toDebugString(key), e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public void write(WriteBatch batch, Durability durability) {
        closeLock.readLock().lock();
        // Encoded in Java and handed over whole: one JNI call instead of one per operation (RocksBatchEncoding).
        try (org.rocksdb.WriteBatch rocksBatch = new org.rocksdb.WriteBatch(RocksBatchEncoding.encode(batch))) {
            checkOpen();
            db.write(durability == Durability.SYNC ? syncedWrites : bufferedWrites, rocksBatch);
            (durability == Durability.SYNC ? syncedBatches : batches).increment();
        } catch (RocksDBException e) {
            throw failure("write a batch of " + batch.size() + " operations", e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public KvIterator iterator(KeyRange range) {
        closeLock.readLock().lock();
        try {
            checkOpen();
            RocksKvIterator iterator = new RocksKvIterator(range);
            iterators.increment();
            openIterators.add(iterator);
            return iterator;
        } finally {
            closeLock.readLock().unlock();
        }
    }

    /** One MultiGet: RocksDB reads every key from one view (one sequence number and one version of its files). */
    @Override
    public List<Optional<byte[]>> multiGet(List<byte[]> keys) {
        closeLock.readLock().lock();
        try {
            checkOpen();
            if (keys.isEmpty()) {
                return List.of(); // RocksJava asserts at least one key
            }
            gets.add(keys.size());
            List<byte[]> found = db.multiGetAsList(keys);
            List<Optional<byte[]>> values = new ArrayList<>(found.size());
            for (byte[] value : found) {
                values.add(Optional.ofNullable(value));
            }
            return values;
        } catch (RocksDBException e) {
            throw failure("multi-get " + keys.size() + " keys", e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public void sync() {
        closeLock.readLock().lock();
        try {
            checkOpen();
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw failure("sync the WAL", e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public void flush() {
        closeLock.readLock().lock();
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
            checkOpen();
            db.flush(flushOptions);
        } catch (RocksDBException e) {
            throw failure("flush memtables", e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public void checkpoint(Path target) {
        closeLock.readLock().lock();
        try {
            checkOpen();
            if (Files.exists(target)) {
                throw new KvException("checkpoint directory " + target + " already exists");
            }
            Path parent = target.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // Created only after checkOpen: a Checkpoint on a closed handle crashes the JVM.
            try (Checkpoint checkpoint = Checkpoint.create(db)) {
                checkpoint.createCheckpoint(target.toString());
            }
        } catch (RocksDBException | IOException e) {
            throw failure("checkpoint into " + target, e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public void close() {
        closeLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (RocksKvIterator iterator : List.copyOf(openIterators)) {
                iterator.release();
            }
            try {
                db.syncWal();
            } catch (RocksDBException e) {
                throw failure("sync the WAL at close", e);
            } finally {
                db.close();
                bufferedWrites.close();
                syncedWrites.close();
                options.close();
                bloomFilter.close();
                blockCache.close();
            }
        } finally {
            closeLock.writeLock().unlock();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new KvException("RocksDB store in " + directory + " is closed");
        }
    }

    private KvException failure(String action, Exception e) {
        return new KvException("RocksDB in " + directory + " failed to " + action + ": "
                + e.getMessage(), e);
    }

    /**
     * A RocksDB iterator bounded by the range; RocksDB pins an implicit snapshot at creation. The
     * upper bound is pushed into RocksDB so it stops reading at the range's end.
     */
    private final class RocksKvIterator implements KvIterator {
        private final ReadOptions readOptions;
        private final Slice upperBound;
        private final RocksIterator iterator;
        private boolean released;

        RocksKvIterator(KeyRange range) {
            readOptions = new ReadOptions();
            upperBound = range.endExclusive() == null ? null : new Slice(range.endExclusive());
            if (upperBound != null) {
                readOptions.setIterateUpperBound(upperBound);
            }
            iterator = db.newIterator(readOptions);
            if (range.startInclusive() == null) {
                iterator.seekToFirst();
            } else {
                iterator.seek(range.startInclusive());
            }
        }

        @Override
        public boolean hasNext() {
            closeLock.readLock().lock();
            try {
                checkUsable();
                if (iterator.isValid()) {
                    return true;
                }
                iterator.status();
                return false;
            } catch (RocksDBException e) {
                throw failure("iterate", e);
            } finally {
                closeLock.readLock().unlock();
            }
        }

        @Override
        public KvEntry next() {
            closeLock.readLock().lock();
            try {
                if (!hasNext()) {
                    throw new NoSuchElementException("iterator is exhausted");
                }
                KvEntry entry = new KvEntry(iterator.key(), iterator.value());
                iterator.next();
                return entry;
            } finally {
                closeLock.readLock().unlock();
            }
        }

        @Override
        public void close() {
            closeLock.readLock().lock();
            try {
                release();
            } finally {
                closeLock.readLock().unlock();
            }
        }

        /** Frees native resources; called under either side of the close lock. */
        synchronized void release() {
            if (released) {
                return;
            }
            released = true;
            openIterators.remove(this);
            iterator.close();
            readOptions.close();
            if (upperBound != null) {
                upperBound.close();
            }
        }

        private void checkUsable() {
            checkOpen();
            if (released) {
                throw new KvException("KV iterator over " + directory + " is closed");
            }
        }
    }
}
