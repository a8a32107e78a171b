package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.WriteBatch;

class ObjectStoreTest {
    private static final String FILE = "volume-1:42";

    @TempDir
    Path root;

    private final List<ObjectStore> opened = new java.util.ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closeStores() {
        opened.forEach(ObjectStore::close);
    }

    private ObjectStore open(Path folder) throws IOException {
        ObjectStore store = ObjectStore.open(folder);
        opened.add(store);
        return store;
    }

    private static ByteBuffer bytes(int length, int seed) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (seed + i);
        }
        return ByteBuffer.wrap(data);
    }

    private static byte[] array(int length, int seed) {
        return bytes(length, seed).array();
    }

    /** One call of {@link ObjectStore#writeInPieces}'s writer: where it wrote and how much it was offered. */
    private record WriteCall(long position, int offeredBytes) {}

    @Test
    void writesPassAtMostOnePieceEndingOnAPieceBoundaryPerCall() throws IOException {
        // Proves a large page-cache write is cut at multiples of the piece size within the object (so the kernel
        // never builds a folio larger than one piece from it), and every byte lands where it belongs.
        byte[] object = new byte[1 << 20];
        List<WriteCall> calls = new java.util.ArrayList<>();
        ByteBuffer data = bytes(300_000, 3);
        ObjectStore.writeInPieces((source, position) -> {
            calls.add(new WriteCall(position, source.remaining()));
            int length = source.remaining();
            source.get(object, (int) position, length);
            return length;
        }, data, 4096, 65536);
        assertThat(data.hasRemaining()).isFalse();
        assertThat(calls).containsExactly(new WriteCall(4096, 61_440), new WriteCall(65_536, 65_536),
                new WriteCall(131_072, 65_536), new WriteCall(196_608, 65_536), new WriteCall(262_144, 41_952));
        assertThat(Arrays.copyOfRange(object, 4096, 304_096)).isEqualTo(array(300_000, 3));
    }

    @Test
    void shortWritesContinueWhereTheyStopped() throws IOException {
        // Proves a writer that takes fewer bytes than offered (as pwrite may) loses and repeats nothing.
        byte[] object = new byte[200_000];
        List<WriteCall> calls = new java.util.ArrayList<>();
        ObjectStore.writeInPieces((source, position) -> {
            calls.add(new WriteCall(position, source.remaining()));
            int length = Math.min(source.remaining(), 40_000);
            source.get(object, (int) position, length);
            return length;
        }, bytes(150_000, 9), 0, 65536);
        assertThat(calls).extracting(WriteCall::position).containsExactly(0L, 40_000L, 65_536L, 105_536L, 131_072L);
        assertThat(calls).allSatisfy(call -> assertThat(call.position() % 65536 + call.offeredBytes())
                .isLessThanOrEqualTo(65536));
        assertThat(Arrays.copyOf(object, 150_000)).isEqualTo(array(150_000, 9));
    }

    @Test
    void aWholeObjectWrittenInPiecesReadsBackWhole() throws IOException {
        // Proves the store's own write (1 MiB into a 1 MiB object, cut into WRITE_CALL_BYTES_MAX pieces) stores it.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1 << 20);
        assertThat(ObjectStore.WRITE_CALL_BYTES_MAX).isLessThan(1 << 20);
        store.write(FILE, layout, 0, 0, bytes(1 << 20, 5), 0, false);
        store.write(FILE, layout, 0, 65_536 - 10, bytes(20, 100), 0, false);
        byte[] expected = array(1 << 20, 5);
        System.arraycopy(array(20, 100), 0, expected, 65_536 - 10, 20);
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(expected);
        assertThat(store.metadata(FILE).sizeBytes()).isEqualTo(1 << 20);
    }

    @Test
    void writtenBytesReadBackAndObjectsLiveUnderHashedFolders() throws IOException {
        // Proves a write is readable and stored at <root>/<hh>/<hh>/<escaped id>/<object number>.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1024);
        store.write(FILE, layout, 3, 100, bytes(200, 7), 0, false);
        assertThat(store.read(FILE, layout, 3, 100, 200)).isEqualTo(array(200, 7));
        Path object = store.objectPath(FILE, 3);
        assertThat(object).exists();
        assertThat(root.relativize(object).getNameCount()).isEqualTo(4);
        assertThat(object.getParent().getFileName().toString()).isEqualTo("volume-1%3A42");
    }

    @Test
    void readsAreShortAtTheEndOfStoredDataAndEmptyForMissingObjects() throws IOException {
        // Proves the OSD never pads: missing objects and bytes past the stored end are simply not returned.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1024);
        store.write(FILE, layout, 0, 0, bytes(300, 1), 0, false);
        assertThat(store.read(FILE, layout, 0, 200, 500)).isEqualTo(Arrays.copyOfRange(array(300, 1), 200, 300));
        assertThat(store.read(FILE, layout, 0, 400, 10)).isEmpty();
        assertThat(store.read(FILE, layout, 1, 0, 10)).isEmpty();
        assertThat(store.read("other:1", layout, 0, 0, 10)).isEmpty();
    }

    @Test
    void writeBeyondTheStoredEndLeavesAZeroHole() throws IOException {
        // Proves bytes skipped by a write at a later offset read as zeros.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1024);
        store.write(FILE, layout, 0, 0, bytes(10, 5), 0, false);
        store.write(FILE, layout, 0, 100, bytes(10, 9), 0, false);
        byte[] read = store.read(FILE, layout, 0, 0, 1024);
        assertThat(read).hasSize(110);
        assertThat(Arrays.copyOfRange(read, 10, 100)).containsOnly(0);
        assertThat(Arrays.copyOfRange(read, 100, 110)).isEqualTo(array(10, 9));
    }

    @Test
    void overwriteReplacesOnlyTheWrittenRange() throws IOException {
        // Proves a write in the middle of an object keeps the bytes around it.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(64);
        store.write(FILE, layout, 0, 0, ByteBuffer.wrap(new byte[64]), 0, false);
        store.write(FILE, layout, 0, 10, bytes(5, 1), 0, true);
        byte[] read = store.read(FILE, layout, 0, 0, 64);
        assertThat(read).hasSize(64);
        assertThat(Arrays.copyOfRange(read, 10, 15)).isEqualTo(array(5, 1));
        assertThat(Arrays.copyOfRange(read, 15, 64)).containsOnly(0);
    }

    @Test
    void rangesOutsideTheObjectOrOnAnotherStripePositionAreRejected() throws IOException {
        // Proves the store refuses writes past the object size and objects of other stripe positions.
        ObjectStore store = open(root);
        assertThatThrownBy(() -> store.write(FILE, StripeLayout.single(64), 0, 60, bytes(5, 0), 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("object size 64");
        StripeLayout second = new StripeLayout(64, 3, 1);
        assertThatThrownBy(() -> store.write(FILE, second, 3, 0, bytes(5, 0), 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stripe position 0");
        store.write(FILE, second, 4, 0, bytes(5, 0), 0, false);
        assertThat(store.storedObjects(FILE)).containsExactly(4L);
    }

    @Test
    void writesGrowTheRecordedSizeAndTheSizeSurvivesANewStore() throws IOException {
        // Proves the metadata records the largest end offset, reports growth only, and is persistent.
        ObjectStore store = open(root);
        StripeLayout layout = new StripeLayout(100, 2, 1);
        assertThat(store.write(FILE, layout, 1, 0, bytes(50, 0), 3, false).sizeGrew()).isTrue();
        assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(150, 3));
        ObjectStorage.WriteOutcome smaller = store.write(FILE, layout, 1, 0, bytes(10, 0), 3, false);
        assertThat(smaller.sizeGrew()).isFalse();
        assertThat(smaller.metadata().sizeBytes()).isEqualTo(150);
        store.write(FILE, layout, 3, 20, bytes(10, 0), 3, true);
        store.close();
        ObjectStore reopened = open(root);
        assertThat(reopened.metadata(FILE)).isEqualTo(new FileMetadata(330, 3));
        assertThat(reopened.metadata("never:1")).isEqualTo(FileMetadata.EMPTY);
    }

    @Test
    void truncateDownAndUpAcrossObjectBoundariesWithOneOsd() throws IOException {
        // Proves truncate deletes objects beyond the size, cuts the last one and extends it sparsely on growth.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(100);
        for (long object = 0; object < 4; object++) {
            store.write(FILE, layout, object, 0, bytes(100, (int) object), 0, false);
        }
        assertThat(store.truncate(FILE, layout, 150, 1)).isEqualTo(new FileMetadata(150, 1));
        assertThat(store.storedObjects(FILE)).containsExactly(0L, 1L);
        assertThat(store.read(FILE, layout, 1, 0, 100)).isEqualTo(array(50, 1));

        store.truncate(FILE, layout, 380, 2);
        assertThat(store.storedObjects(FILE)).containsExactly(0L, 1L, 3L);
        assertThat(Files.size(store.objectPath(FILE, 3))).isEqualTo(80);
        assertThat(store.read(FILE, layout, 3, 0, 100)).hasSize(80).containsOnly(0);
        assertThat(store.read(FILE, layout, 1, 0, 100)).isEqualTo(array(50, 1));
        assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(380, 2));

        store.truncate(FILE, layout, 0, 3);
        assertThat(store.storedObjects(FILE)).isEmpty();
        assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(0, 3));
    }

    @Test
    void truncateDownAndUpOnEachOfThreeStripePositions() throws IOException {
        // Proves each of three OSDs keeps exactly its objects below the new size and only the holder of the
        // last object creates or cuts it.
        List<ObjectStore> stores = List.of(open(root.resolve("p0")), open(root.resolve("p1")),
                open(root.resolve("p2")));
        int objectSize = 4;
        for (long object = 0; object < 9; object++) {
            int position = (int) (object % 3);
            stores.get(position).write(FILE, new StripeLayout(objectSize, 3, position), object, 0,
                    bytes(objectSize, (int) object), 0, false);
        }
        // 14 bytes: objects 0..2 whole, object 3 holds bytes 12..13.
        for (int position = 0; position < 3; position++) {
            stores.get(position).truncate(FILE, new StripeLayout(objectSize, 3, position), 14, 1);
        }
        assertThat(stores.get(0).storedObjects(FILE)).containsExactly(0L, 3L);
        assertThat(stores.get(1).storedObjects(FILE)).containsExactly(1L);
        assertThat(stores.get(2).storedObjects(FILE)).containsExactly(2L);
        assertThat(stores.get(0).read(FILE, new StripeLayout(objectSize, 3, 0), 3, 0, 4))
                .isEqualTo(array(2, 3));
        // 30 bytes: object 7 (position 1) holds bytes 28..29 and is created sparse.
        for (int position = 0; position < 3; position++) {
            stores.get(position).truncate(FILE, new StripeLayout(objectSize, 3, position), 30, 2);
            assertThat(stores.get(position).metadata(FILE)).isEqualTo(new FileMetadata(30, 2));
        }
        assertThat(stores.get(0).storedObjects(FILE)).containsExactly(0L, 3L);
        assertThat(stores.get(1).storedObjects(FILE)).containsExactly(1L, 7L);
        assertThat(stores.get(2).storedObjects(FILE)).containsExactly(2L);
        assertThat(stores.get(1).read(FILE, new StripeLayout(objectSize, 3, 1), 7, 0, 4)).containsExactly(0, 0);
        assertThat(stores.get(0).read(FILE, new StripeLayout(objectSize, 3, 0), 3, 0, 4)).hasSize(2);
    }

    @Test
    void deleteFileRemovesObjectsAndMetadata() throws IOException {
        // Proves deletion leaves nothing of the file behind and is idempotent.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(100);
        store.write(FILE, layout, 0, 0, bytes(10, 0), 0, false);
        store.write(FILE, layout, 5, 0, bytes(10, 0), 0, false);
        store.deleteFile(FILE);
        assertThat(store.exists(FILE)).isFalse();
        assertThat(store.storedObjects(FILE)).isEmpty();
        assertThat(store.metadata(FILE)).isEqualTo(FileMetadata.EMPTY);
        store.deleteFile(FILE);
    }

    @Test
    void deleteFileOfAFileWithMetadataButNoObjectsRemovesTheMetadata() throws IOException {
        // Proves the deletion of a file without a folder (found by a stat, not by a failed directory listing) still
        // removes what the file has here: its size record and the batch passed with it (the deletion queue's entry).
        ObjectStore store = open(root);
        store.write(FILE, StripeLayout.single(100), 0, 0, bytes(10, 0), 3, false);
        Files.delete(store.objectPath(FILE, 0)); // the folder gone by other means; the size record stays
        Files.delete(store.fileFolder(FILE));
        assertThat(store.exists(FILE)).isFalse();
        assertThat(store.metadata(FILE)).isEqualTo(new FileMetadata(10, 3));
        byte[] companion = {0, 'x'};
        store.metadataStore().write(new WriteBatch().put(companion, new byte[] {1}), Durability.SYNC);
        store.deleteFile(FILE, new WriteBatch().delete(companion), Durability.SYNC);
        assertThat(store.metadata(FILE)).isEqualTo(FileMetadata.EMPTY);
        assertThat(FileMetadata.load(store.metadataStore(), FILE)).isEqualTo(FileMetadata.EMPTY);
        assertThat(store.metadataStore().get(companion)).isEmpty();
    }

    @Test
    void aNewObjectIsWrittenAlsoWhenItsFilesFolderWentByOtherMeansWhileAnObjectWasHeldOpen() throws IOException {
        // Proves the write of a new object finds its folder missing and makes it again, although a channel of the file
        // in the open-file cache (which otherwise stands for the folder's existence, openForWrite) says it is there.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(100);
        store.write(FILE, layout, 0, 0, bytes(10, 1), 0, false);
        assertThat(store.holdsOpen(FILE, 0)).isTrue();
        Files.delete(store.objectPath(FILE, 0));
        Files.delete(store.fileFolder(FILE));
        store.write(FILE, layout, 1, 0, bytes(20, 2), 0, false);
        assertThat(store.read(FILE, layout, 1, 0, 100)).isEqualTo(array(20, 2));
        assertThat(store.storedObjects(FILE)).containsExactly(1L);
        store.write(FILE, layout, 2, 0, bytes(30, 3), 0, true);
        assertThat(store.read(FILE, layout, 2, 0, 100)).isEqualTo(array(30, 3));
    }

    @Test
    void aFileDeletedAndWrittenAgainReadsOnlyItsNewBytes() throws IOException {
        // Proves no access after a deletion reaches the deleted object through a file kept open since.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(100);
        store.write(FILE, layout, 0, 0, bytes(100, 1), 0, false);
        assertThat(store.read(FILE, layout, 0, 0, 100)).isEqualTo(array(100, 1));
        store.deleteFile(FILE);
        assertThat(store.read(FILE, layout, 0, 0, 100)).isEmpty();
        store.write(FILE, layout, 0, 0, bytes(10, 9), 0, false);
        assertThat(store.read(FILE, layout, 0, 0, 100)).isEqualTo(array(10, 9));
        assertThat(Files.size(store.objectPath(FILE, 0))).isEqualTo(10);
    }

    @Test
    void fsyncOfAnUnknownFileIsANoOpAndOfAKnownFileSucceeds() throws IOException {
        // Proves fsync forces existing objects without failing on files this OSD never stored.
        ObjectStore store = open(root);
        store.fsync("unknown:1");
        store.write(FILE, StripeLayout.single(100), 0, 0, bytes(10, 0), 0, false);
        store.fsync(FILE);
        assertThat(store.read(FILE, StripeLayout.single(100), 0, 0, 10)).isEqualTo(array(10, 0));
    }

    @Test
    void fsyncOfManyObjectsForcesThemOnTheFsyncThreadsAndKeepsEveryByte() throws IOException {
        // Proves a file of many objects is forced by the fsync threads (one after another, 4,096 objects took
        // longer than a client's 30-s call deadline) and that every object is still intact afterwards.
        ObjectStore store = open(root);
        // The objects are written short of their end, so none is forced in the background before the fsync.
        StripeLayout layout = StripeLayout.single(4096);
        int objects = 3 * ObjectStore.FSYNC_PARALLELISM;
        for (int object = 0; object < objects; object++) {
            store.write(FILE, layout, object, 0, bytes(4000, object), 0, false);
        }
        assertThat(store.dirtyObjects().marked(FILE)).hasSize(objects);
        store.fsync(FILE);
        assertThat(Thread.getAllStackTraces().keySet()).anyMatch(thread -> thread.getName().startsWith("osd-fsync-"));
        assertThat(store.dirtyObjects().marked(FILE)).isEmpty();
        for (int object = 0; object < objects; object++) {
            assertThat(store.read(FILE, layout, object, 0, 4000)).isEqualTo(array(4000, object));
        }
    }

    @Test
    void fsyncFailsWhenAnObjectCannotBeForcedAfterForcingTheOthers() throws IOException {
        // Proves a force that fails on one of the fsync threads is the fsync's failure (never a silent success):
        // object 5 is a symbolic link to nothing, which cannot be opened to be forced. The store is opened again
        // first: after a restart the fsync forces every stored object, also those no write of this process marked.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(4096);
        for (int object = 0; object < 4; object++) {
            store.write(FILE, layout, object, 0, bytes(100, object), 0, false);
        }
        Files.createSymbolicLink(store.objectPath(FILE, 5), root.resolve("nowhere"));
        store.close();
        ObjectStore restarted = open(root);
        assertThatThrownBy(() -> restarted.fsync(FILE)).isInstanceOf(IOException.class).hasMessageContaining("5");
    }

    @Test
    void objectsAStreamWroteToTheirEndAreForcedInTheBackgroundAndAWriteAfterAnFsyncIsForcedByTheNext()
            throws Exception {
        // Proves the store's use of the marks: whole-object writes (a stream's) are forced in the background, a batch
        // at a time, a partial or small one waits for the fsync, the fsync clears what it forced, and a write after it
        // is marked again for the next fsync; a synced write marks nothing (it forced its object itself).
        ObjectStore store = open(root);
        int objectSizeBytes = ObjectStore.STREAM_WRITE_BYTES_MIN;
        StripeLayout layout = StripeLayout.single(objectSizeBytes);
        int batch = ObjectStore.FSYNC_PARALLELISM;
        for (int object = 5; object < 5 + batch; object++) {
            store.write(FILE, layout, object, 0, bytes(objectSizeBytes, object), 0, false);
        }
        store.write(FILE, layout, 0, 0, bytes(objectSizeBytes, 0), 0, false);
        store.write(FILE, layout, 1, 0, bytes(objectSizeBytes, 1), 0, false);
        store.write(FILE, layout, 2, 0, bytes(objectSizeBytes - 1, 2), 0, false);
        store.write(FILE, layout, 3, objectSizeBytes - 4096, bytes(4096, 3), 0, false);
        store.write(FILE, layout, 4, 0, bytes(100, 4), 0, true);
        store.dirtyObjects().awaitBackgroundForces();
        assertThat(store.dirtyObjects().backgroundForcesMade()).isEqualTo(batch);
        assertThat(store.dirtyObjects().marked(FILE)).containsExactly(0L, 1L, 2L, 3L);
        store.fsync(FILE);
        assertThat(store.dirtyObjects().marked(FILE)).isEmpty();
        store.write(FILE, layout, 3, 0, bytes(10, 5), 0, false);
        assertThat(store.dirtyObjects().marked(FILE)).containsExactly(3L);
        store.truncate(FILE, layout, 2L * objectSizeBytes, 0);
        assertThat(store.dirtyObjects().marked(FILE)).as("the truncated objects need no force").isEmpty();
        assertThat(store.read(FILE, layout, 1, 0, objectSizeBytes)).isEqualTo(array(objectSizeBytes, 1));

        // A file a truncation created (as fio lays out a new file) is clean from there: its fsync forces only what
        // is written after; a file that existed before its first write here counts as wholly dirty.
        store.truncate("volume-1:43", layout, 4L * objectSizeBytes, 0);
        store.write("volume-1:43", layout, 1, 0, bytes(10, 1), 0, false);
        assertThat(store.dirtyObjects().wholly("volume-1:43")).isFalse();
        assertThat(store.dirtyObjects().marked("volume-1:43")).containsExactly(1L);
        store.close();
        ObjectStore restarted = open(root);
        restarted.write("volume-1:43", layout, 2, 0, bytes(10, 2), 0, false);
        assertThat(restarted.dirtyObjects().wholly("volume-1:43")).isTrue();
    }

    @Test
    void concurrentWritesToDifferentObjectsOfOneFileNeverLoseASizeGrowth() throws Exception {
        // Proves the per-file lock around the size record: the storage stage now runs writes to different
        // objects of one file at once, and an unguarded read-grow-store would let a smaller end win.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(4096);
        int objects = 64;
        for (int round = 0; round < 5; round++) {
            String file = "volume-1:" + (100 + round);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<ObjectStore.WriteOutcome>> outcomes = new java.util.ArrayList<>();
            for (int object = 0; object < objects; object++) {
                final int objectNumber = object;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    return store.write(file, layout, objectNumber, 0, bytes(4096, objectNumber), 0, false);
                }));
            }
            start.countDown();
            int grew = 0;
            for (java.util.concurrent.Future<ObjectStore.WriteOutcome> outcome : outcomes) {
                grew += outcome.get().sizeGrew() ? 1 : 0;
            }
            pool.shutdown();
            assertThat(store.metadata(file).sizeBytes()).isEqualTo(objects * 4096L);
            assertThat(grew).isBetween(1, objects);
            for (int object = 0; object < objects; object++) {
                assertThat(store.read(file, layout, object, 0, 4096)).isEqualTo(array(4096, object));
            }
        }
    }

    /** {@code length} bytes from {@code seed} in a direct buffer starting on a 4 KiB boundary, as the RPC decoder
     * hands large data segments over. */
    private static ByteBuffer alignedDirect(int length, int seed) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(length + 4096).alignedSlice(4096);
        buffer.limit(length);
        buffer.put(bytes(length, seed));
        return buffer.flip();
    }

    @Test
    void largeAlignedWritesBypassThePageCacheAndReadBack() throws IOException {
        // Proves a large write whose offset, length and memory are block-aligned goes to the disk with O_DIRECT, and
        // that whatever is not (heap bytes, an unaligned offset, a small write) still goes through the page cache;
        // every byte reads back and the size record grows as before.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1 << 20);
        ObjectStore.WriteOutcome outcome = store.write(FILE, layout, 0, 0, alignedDirect(1 << 20, 1), 0, false);
        assertThat(store.directWrites()).isEqualTo(1);
        assertThat(outcome.sizeGrew()).isTrue();
        store.write(FILE, layout, 1, 0, bytes(1 << 20, 2), 0, false); // heap memory
        store.write(FILE, layout, 2, 4096, alignedDirect(ObjectStore.DIRECT_WRITE_BYTES_MIN, 3), 0, false);
        store.write(FILE, layout, 3, 100, alignedDirect(ObjectStore.DIRECT_WRITE_BYTES_MIN, 4), 0, false);
        store.write(FILE, layout, 4, 0, alignedDirect(ObjectStore.DIRECT_WRITE_BYTES_MIN - 4096, 5), 0, true);
        assertThat(store.directWrites()).isEqualTo(2);
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(array(1 << 20, 1));
        assertThat(store.read(FILE, layout, 1, 0, 1 << 20)).isEqualTo(array(1 << 20, 2));
        byte[] second = new byte[4096 + ObjectStore.DIRECT_WRITE_BYTES_MIN];
        System.arraycopy(array(ObjectStore.DIRECT_WRITE_BYTES_MIN, 3), 0, second, 4096, ObjectStore.DIRECT_WRITE_BYTES_MIN);
        assertThat(store.read(FILE, layout, 2, 0, second.length)).isEqualTo(second);
        assertThat(store.read(FILE, layout, 3, 100, ObjectStore.DIRECT_WRITE_BYTES_MIN))
                .isEqualTo(array(ObjectStore.DIRECT_WRITE_BYTES_MIN, 4));
        assertThat(store.read(FILE, layout, 4, 0, 1 << 20)).isEqualTo(array(ObjectStore.DIRECT_WRITE_BYTES_MIN - 4096, 5));
        assertThat(store.metadata(FILE).sizeBytes()).isEqualTo(4L * (1 << 20) + ObjectStore.DIRECT_WRITE_BYTES_MIN - 4096);
    }

    @Test
    void directAndBufferedWritesOfOneObjectSeeEachOthersBytes() throws IOException {
        // Proves the page cache and O_DIRECT stay coherent on one object (its buffered channel stays open in the
        // cache meanwhile): a direct write replaces dirty cached bytes under it, later buffered writes land on top,
        // and a synced direct write of a new object survives a new store on the same folder.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1 << 20);
        store.write(FILE, layout, 0, 8192, bytes(4096, 7), 0, false);
        assertThat(store.read(FILE, layout, 0, 8192, 4096)).isEqualTo(array(4096, 7)); // cached, dirty
        store.write(FILE, layout, 0, 0, alignedDirect(1 << 20, 8), 0, false);
        store.write(FILE, layout, 0, 5000, bytes(100, 9), 0, false);
        byte[] expected = array(1 << 20, 8);
        System.arraycopy(array(100, 9), 0, expected, 5000, 100);
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(expected);
        store.write(FILE, layout, 1, 0, alignedDirect(1 << 20, 10), 0, true);
        assertThat(store.directWrites()).isEqualTo(2);
        store.close();
        opened.remove(store);
        ObjectStore reopened = open(root);
        assertThat(reopened.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(expected);
        assertThat(reopened.read(FILE, layout, 1, 0, 1 << 20)).isEqualTo(array(1 << 20, 10));
        assertThat(reopened.metadata(FILE).sizeBytes()).isEqualTo(2L << 20);
    }

    @Test
    void anObjectWrittenDirectInPiecesOpensItsDirectChannelOnceAndATruncateClosesIt() throws IOException {
        // Proves the O_DIRECT channel is cached beside the ordinary one: four direct pieces of one 1 MiB object open
        // one file, a buffered write and a read of it open its ordinary channel (never the direct one: an unaligned
        // write through it would fail), and a truncate drops both so that the next direct write opens anew.
        ObjectStore store = open(root);
        StripeLayout layout = StripeLayout.single(1 << 20);
        int piece = ObjectStore.DIRECT_WRITE_BYTES_MIN;
        for (int offset = 0; offset < 1 << 20; offset += piece) {
            store.write(FILE, layout, 0, offset, alignedDirect(piece, offset), 0, false);
        }
        assertThat(store.directWrites()).isEqualTo(4);
        assertThat(store.objectFilesOpened()).isEqualTo(1);
        store.write(FILE, layout, 0, 100, bytes(10, 99), 0, false);
        byte[] expected = new byte[1 << 20];
        for (int offset = 0; offset < 1 << 20; offset += piece) {
            System.arraycopy(array(piece, offset), 0, expected, offset, piece);
        }
        System.arraycopy(array(10, 99), 0, expected, 100, 10);
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(expected);
        assertThat(store.objectFilesOpened()).as("the ordinary channel beside the direct one").isEqualTo(2);
        store.truncate(FILE, layout, piece, 1);
        store.write(FILE, layout, 0, piece, alignedDirect(piece, 7), 1, true);
        assertThat(store.objectFilesOpened()).as("the truncate dropped the cached direct channel").isEqualTo(3);
        byte[] afterTruncate = new byte[2 * piece];
        System.arraycopy(expected, 0, afterTruncate, 0, piece);
        System.arraycopy(array(piece, 7), 0, afterTruncate, piece, piece);
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(afterTruncate);
        assertThat(store.metadata(FILE).sizeBytes()).isEqualTo(2L * piece);
    }

    @Test
    void anEmulatedDeviceKeepsLargeWritesInThePageCache() throws IOException {
        // Proves direct writes are for the real disk only: an emulated device's model decides the device time of
        // a write (its own write-back), so the real I/O under it stays as before.
        StorageDevice emulated = DeviceEmulation.SSD.device(org.xtreemfs.foundation.clock.SystemClock.INSTANCE);
        ObjectStore store = ObjectStore.open(root, emulated, false);
        opened.add(store);
        StripeLayout layout = StripeLayout.single(1 << 20);
        store.write(FILE, layout, 0, 0, alignedDirect(1 << 20, 11), 0, false);
        assertThat(store.directWrites()).isZero();
        assertThat(store.read(FILE, layout, 0, 0, 1 << 20)).isEqualTo(array(1 << 20, 11));
    }
}
