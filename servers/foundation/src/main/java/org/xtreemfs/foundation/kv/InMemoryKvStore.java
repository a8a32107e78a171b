package org.xtreemfs.foundation.kv;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link KvStore} on a sorted map, for unit tests and the simulator: same ordering, atomicity
 * and snapshot semantics as {@link RocksKvStore}, nothing survives the process except checkpoints.
 * Iterators copy their range when created, which is what makes them snapshots; fine for test-sized
 * data, not for production volumes.
 */
public final class InMemoryKvStore implements KvStore {

    /** Name of the single file a checkpoint directory holds. */
    static final String CHECKPOINT_FILE = "in-memory-kv.bin";

    private static final int CHECKPOINT_FORMAT_VERSION = 1;

    private final NavigableMap<byte[], byte[]> entries = new TreeMap<>(Arrays::compareUnsigned);
    private boolean closed;

    public InMemoryKvStore() {
    }

    /** Opens a copy of the store written by {@link #checkpoint(Path)}. */
    public static InMemoryKvStore openCheckpoint(Path directory) {
        InMemoryKvStore store = new InMemoryKvStore();
        Path file = directory.resolve(CHECKPOINT_FILE);
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(
                Files.newInputStream(file)))) {
            int version = in.readInt();
            if (version != CHECKPOINT_FORMAT_VERSION) {
                throw new KvException(file + ": unknown checkpoint format version " + version);
            }
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                byte[] key = in.readNBytes(in.readInt());
                byte[] value = in.readNBytes(in.readInt());
                store.entries.put(key, value);
            }
        } catch (IOException e) {
            throw new KvException("cannot read in-memory checkpoint " + file + ": " + e, e);
        }
        return store;
    }

    @Override
    public synchronized Optional<byte[]> get(byte[] key) {
        checkOpen();
        byte[] value = entries.get(key);
        return value == null ? Optional.empty() : Optional.of(value.clone());
    }

    @Override
    public synchronized List<Optional<byte[]>> multiGet(List<byte[]> keys) {
        checkOpen();
        List<Optional<byte[]>> values = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            byte[] value = entries.get(key);
            values.add(value == null ? Optional.empty() : Optional.of(value.clone()));
        }
        return values;
    }

    /** Atomic because readers take the same monitor; the batch already owns copied arrays. */
    @Override
    public synchronized void write(WriteBatch batch, Durability durability) {
        checkOpen();
        for (WriteBatch.Operation operation : batch.operations()) {
            if (operation instanceof WriteBatch.Put put) {
                entries.put(put.key(), put.value());
            } else {
                entries.remove(operation.key());
            }
        }
    }

    @Override
    public synchronized KvIterator iterator(KeyRange range) {
        checkOpen();
        List<KvEntry> snapshot = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> entry : subMap(range).entrySet()) {
            snapshot.add(new KvEntry(entry.getKey().clone(), entry.getValue().clone()));
        }
        return new SnapshotIterator(snapshot.iterator());
    }

    @Override
    public synchronized List<KvEntry> scan(KeyRange range, int maxEntries) {
        checkOpen();
        if (maxEntries < 0) {
            throw new IllegalArgumentException("maxEntries must not be negative: " + maxEntries);
        }
        List<KvEntry> result = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> entry : subMap(range).entrySet()) {
            if (result.size() >= maxEntries) {
                break;
            }
            result.add(new KvEntry(entry.getKey().clone(), entry.getValue().clone()));
        }
        return result;
    }

    @Override
    public synchronized void sync() {
        checkOpen();
    }

    @Override
    public synchronized void flush() {
        checkOpen();
    }

    @Override
    public synchronized void checkpoint(Path directory) {
        checkOpen();
        if (Files.exists(directory)) {
            throw new KvException("checkpoint directory " + directory + " already exists");
        }
        Path file = directory.resolve(CHECKPOINT_FILE);
        try {
            Files.createDirectories(directory);
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(file)))) {
                out.writeInt(CHECKPOINT_FORMAT_VERSION);
                out.writeInt(entries.size());
                for (Map.Entry<byte[], byte[]> entry : entries.entrySet()) {
                    out.writeInt(entry.getKey().length);
                    out.write(entry.getKey());
                    out.writeInt(entry.getValue().length);
                    out.write(entry.getValue());
                }
            }
        } catch (IOException e) {
            throw new KvException("cannot write in-memory checkpoint " + file + ": " + e, e);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        entries.clear();
    }

    private NavigableMap<byte[], byte[]> subMap(KeyRange range) {
        NavigableMap<byte[], byte[]> view = entries;
        if (range.startInclusive() != null) {
            view = view.tailMap(range.startInclusive(), true);
        }
        if (range.endExclusive() != null) {
            view = view.headMap(range.endExclusive(), false);
        }
        return view;
    }

    private void checkOpen() {
        if (closed) {
            throw new KvException("in-memory KV store is closed");
        }
    }

    /** Iterates a private copy; fails like a RocksDB iterator once the store is closed. */
    private final class SnapshotIterator implements KvIterator {
        private final Iterator<KvEntry> snapshot;
        private boolean iteratorClosed;

        SnapshotIterator(Iterator<KvEntry> snapshot) {
            this.snapshot = snapshot;
        }

        @Override
        public boolean hasNext() {
            checkUsable();
            return snapshot.hasNext();
        }

        @Override
        public KvEntry next() {
            if (!hasNext()) {
                throw new NoSuchElementException("iterator is exhausted");
            }
            return snapshot.next();
        }

        @Override
        public void close() {
            iteratorClosed = true;
        }

        private void checkUsable() {
            synchronized (InMemoryKvStore.this) {
                checkOpen();
            }
            if (iteratorClosed) {
                throw new KvException("KV iterator is closed");
            }
        }
    }
}
