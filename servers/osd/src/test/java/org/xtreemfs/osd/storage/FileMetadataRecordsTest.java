package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.WriteBatch;

/** The size records kept in memory: served without store reads, always equal to the store (FileMetadataRecords). */
class FileMetadataRecordsTest {
    private static final String FILE = "volume-1:7";

    @TempDir
    Path root;

    /** Counts gets; fails writes while {@code failWrites} is set. */
    private static final class CountingStore extends ForwardingKvStore {
        final AtomicInteger gets = new AtomicInteger();
        final AtomicBoolean failWrites = new AtomicBoolean();

        @Override
        public Optional<byte[]> get(byte[] key) {
            gets.incrementAndGet();
            return super.get(key);
        }

        @Override
        public void write(WriteBatch batch, Durability durability) {
            if (failWrites.get()) {
                throw new KvException("disk full (test)");
            }
            super.write(batch, durability);
        }
    }

    private static ByteBuffer bytes(int length) {
        return ByteBuffer.wrap(new byte[length]);
    }

    @Test
    void writesReadTheSizeRecordFromTheStoreOnceAndStoreEveryChange() throws IOException {
        CountingStore kv = new CountingStore();
        try (ObjectStore store = new ObjectStore(root, kv)) {
            StripeLayout layout = StripeLayout.single(4096);
            for (int i = 0; i < 50; i++) {
                store.write(FILE, layout, i % 5, 0, bytes(4096), 1, false);
                // Memory and the store agree after every write.
                assertThat(FileMetadata.load(kv.inner, FILE)).isEqualTo(store.metadata(FILE));
            }
            assertThat(kv.gets.get()).isEqualTo(1); // the first write's; the other 49 and metadata() from memory
            assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(5 * 4096, 1));
            assertThat(store.truncate(FILE, layout, 100, 2)).isEqualTo(new FileMetadata(100, 2));
            assertThat(FileMetadata.load(kv.inner, FILE)).isEqualTo(new FileMetadata(100, 2));
            store.deleteFile(FILE, new WriteBatch(), Durability.SYNC);
            assertThat(store.metadata(FILE)).isEqualTo(FileMetadata.EMPTY);
            assertThat(FileMetadata.load(kv.inner, FILE)).isEqualTo(FileMetadata.EMPTY);
        }
    }

    @Test
    void aFailedStoreWriteLeavesNoRecordInMemoryThatTheStoreLacks() throws IOException {
        CountingStore kv = new CountingStore();
        try (ObjectStore store = new ObjectStore(root, kv)) {
            StripeLayout layout = StripeLayout.single(4096);
            store.write(FILE, layout, 0, 0, bytes(100), 1, false);
            kv.failWrites.set(true);
            assertThatThrownBy(() -> store.write(FILE, layout, 1, 0, bytes(100), 1, false))
                    .isInstanceOf(IOException.class).hasMessageContaining(FILE);
            kv.failWrites.set(false);
            // The growth to 4196 never reached the store, so memory must not claim it.
            assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(100, 1));
            assertThat(store.write(FILE, layout, 1, 0, bytes(100), 1, false).sizeGrew()).isTrue();
            assertThat(FileMetadata.load(kv.inner, FILE)).isEqualTo(new FileMetadata(4196, 1));
        }
    }

    @Test
    void bothLayoutsOfOneStoreShareTheRecordsInMemory() throws IOException {
        // The role layout: a file whose objects ended up in both layouts (two first writes that raced under different
        // roles) has one record; a growth through the log must be seen by the conventional layout's next write.
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE,
                LogStructuredStore.Options.defaults())) {
            StripeLayout layout = StripeLayout.single(4096);
            storage.forRole(ReplicaRole.SOLE).write(FILE, layout, 0, 0, bytes(100), 1, false); // conventional
            assertThat(storage.metadata(FILE)).isEqualTo(new FileMetadata(100, 1));
            storage.log().write(FILE, layout, 1, 0, bytes(10), 1, false);
            ObjectStorage.WriteOutcome outcome = storage.forRole(ReplicaRole.SOLE)
                    .write(FILE, layout, 0, 0, bytes(50), 1, false); // conventional again: the object is there
            assertThat(outcome.metadata()).isEqualTo(new FileMetadata(4106, 1));
            assertThat(storage.metadata(FILE)).isEqualTo(new FileMetadata(4106, 1));
            assertThat(FileMetadata.load(storage.metadataStore(), FILE)).isEqualTo(new FileMetadata(4106, 1));
            storage.deleteFile(FILE, new WriteBatch(), Durability.SYNC);
            assertThat(storage.metadata(FILE)).isEqualTo(FileMetadata.EMPTY);
            assertThat(FileMetadata.load(storage.metadataStore(), FILE)).isEqualTo(FileMetadata.EMPTY);
        }
    }

    @Test
    void memoryIsBoundedAndEvictedRecordsAreReadBack() throws IOException {
        CountingStore kv = new CountingStore();
        FileMetadataRecords records = new FileMetadataRecords(kv);
        for (int i = 0; i < FileMetadataRecords.CACHED_FILES_MAX + 10; i++) {
            String fileId = "v:" + i;
            synchronized (records.lockFor(fileId)) {
                records.store(fileId, new FileMetadata(i, 0), Durability.BUFFERED);
            }
        }
        assertThat(records.cachedFiles()).isEqualTo(FileMetadataRecords.CACHED_FILES_MAX);
        assertThat(kv.gets.get()).isZero();
        assertThat(records.get("v:0")).isEqualTo(new FileMetadata(0, 0)); // evicted first: read back from the store
        assertThat(kv.gets.get()).isEqualTo(1);
    }
}
