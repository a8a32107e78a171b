package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.interfaces.osd.ReadResponse;
import org.xtreemfs.osd.replication.XLocVersions;
import org.xtreemfs.osd.storage.DeletionQueue;
import org.xtreemfs.osd.storage.FileMetadata;
import org.xtreemfs.osd.storage.FileMetadataRecords;
import org.xtreemfs.osd.storage.ForwardingKvStore;
import org.xtreemfs.osd.storage.ObjectStorage;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StripeLayout;

/** The deletion scheduler handing due deletions to the storage stage ({@link DeletionScheduler#dispatchDue}). */
class DeletionSchedulerTest {
    private static final String NEVER_WRITTEN = "vol:1";
    private static final String WRITTEN = "vol:2";
    private static final FileMetadata SIZE_RECORD = new FileMetadata(10, 1);

    @TempDir
    Path folder;

    /** An in-memory store that remembers which thread wrote each batch. */
    private static final class ThreadRecordingStore extends ForwardingKvStore {
        final Map<String, Integer> batchesByThread = new ConcurrentHashMap<>();

        @Override
        public void write(WriteBatch batch, Durability durability) {
            batchesByThread.merge(Thread.currentThread().getName(), 1, Integer::sum);
            super.write(batch, durability);
        }
    }

    @Test
    void aFileWithoutObjectsIsDeletedOnTheSchedulersThreadAndAFileWithObjectsOnAWorker() throws Exception {
        // Proves the deletion of a never-written file costs no worker wake-up (it runs on the calling thread, done
        // when dispatchDue returns), while one with objects to remove still goes to the workers; both end with the
        // objects, the metadata and the queue entry gone.
        ThreadRecordingStore metadata = new ThreadRecordingStore();
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 16);
            StorageStage storage = new StorageStage(store, queue, 2, 64, true, SystemClock.INSTANCE, request -> { },
                    null, ReadResponse::getDefaultInstance, new XLocVersions(metadata),
                    new StorageHealth("osd", 5, System::nanoTime));
            try {
                store.write(WRITTEN, StripeLayout.single(4096), 0, 0, ByteBuffer.wrap(new byte[10]), 1, false);
                assertThat(queue.enqueueAll(List.of(NEVER_WRITTEN, WRITTEN))).isTrue();
                metadata.batchesByThread.clear();

                String self = Thread.currentThread().getName();
                assertThat(new DeletionScheduler(queue, storage, 1_000).dispatchDue()).isEqualTo(2);
                assertThat(queue.isPending(NEVER_WRITTEN)).isFalse();
                assertThat(metadata.batchesByThread).containsEntry(self, 1);

                await().atMost(Duration.ofSeconds(10)).until(() -> !queue.isPending(WRITTEN));
                assertThat(store.exists(WRITTEN)).isFalse();
                assertThat(store.metadata(WRITTEN)).isEqualTo(FileMetadata.EMPTY);
                assertThat(queue.pendingCount()).isZero();
                assertThat(metadata.batchesByThread).hasSize(2).containsEntry(self, 1);
                // Nothing is left to be deleted again after a restart.
                assertThat(new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 16).pendingCount()).isZero();
            } finally {
                storage.close();
            }
        }
    }

    /** A storage stage with room for every deletion of these tests at once. */
    private static StorageStage stage(ObjectStore store, DeletionQueue queue, XLocVersions versions) {
        return new StorageStage(store, queue, 2, 1_000, true, SystemClock.INSTANCE, request -> { }, null,
                ReadResponse::getDefaultInstance, versions, new StorageHealth("osd", 5, System::nanoTime));
    }

    /** Files vol:100 ... without objects here, each with a size record and a raised XLoc version stored. */
    private static List<String> filesWithoutObjects(ObjectStore store, XLocVersions versions, int count)
            throws Exception {
        List<String> fileIds = new java.util.ArrayList<>();
        FileMetadataRecords records = new FileMetadataRecords(store.metadataStore());
        for (int i = 0; i < count; i++) {
            String fileId = "vol:" + (100 + i);
            records.store(fileId, SIZE_RECORD, Durability.SYNC);
            versions.check(fileId, 2, Object.class);
            assertThat(store.exists(fileId)).isFalse();
            assertThat(store.metadata(fileId)).isEqualTo(SIZE_RECORD); // now in the store's memory too
            fileIds.add(fileId);
        }
        return fileIds;
    }

    @Test
    void dueFilesWithoutObjectsAreRemovedInOneWritePerBatchAndOthersAreLeftAlone() throws Exception {
        // Proves the deletions of files without objects are written together (one metadata write per
        // DELETIONS_PER_WRITE_MAX, not one per file) and remove each file's size record, XLoc version and queue entry,
        // while a due file with objects is still deleted on a worker and a live file (not queued) keeps everything.
        ThreadRecordingStore metadata = new ThreadRecordingStore();
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000);
            XLocVersions versions = new XLocVersions(metadata);
            StorageStage storage = stage(store, queue, versions);
            try {
                int count = StorageStage.DELETIONS_PER_WRITE_MAX + 6;
                List<String> withoutObjects = filesWithoutObjects(store, versions, count);
                store.write(WRITTEN, StripeLayout.single(4096), 0, 0, ByteBuffer.wrap(new byte[10]), 1, false);
                String live = "vol:3";
                store.write(live, StripeLayout.single(4096), 0, 0, ByteBuffer.wrap(new byte[20]), 1, false);
                List<String> due = new java.util.ArrayList<>(withoutObjects);
                due.add(WRITTEN);
                assertThat(queue.enqueueAll(due)).isTrue();
                metadata.batchesByThread.clear();

                String self = Thread.currentThread().getName();
                assertThat(new DeletionScheduler(queue, storage, 1_000).dispatchDue()).isEqualTo(count + 1);
                assertThat(metadata.batchesByThread).containsEntry(self, 2); // 64 files, then 6
                XLocVersions afterRestart = new XLocVersions(metadata);
                for (String fileId : withoutObjects) {
                    assertThat(queue.isPending(fileId)).as(fileId).isFalse();
                    assertThat(store.metadata(fileId)).as(fileId).isEqualTo(FileMetadata.EMPTY);
                    assertThat(stored(metadata, fileId)).as(fileId).isEqualTo(FileMetadata.EMPTY);
                    afterRestart.check(fileId, 1, Object.class); // version 2 is gone: an XLoc of version 1 is current
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> !queue.isPending(WRITTEN));
                assertThat(store.exists(WRITTEN)).isFalse();
                assertThat(store.exists(live)).isTrue();
                assertThat(store.metadata(live)).isEqualTo(new FileMetadata(20, 1));
                assertThat(storage.filesDeleted()).isEqualTo(count + 1);
                assertThat(new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000).pendingCount()).isZero();
            } finally {
                storage.close();
            }
        }
    }

    /** A store whose writes from the calling thread fail while {@link #failing}, as if the process died first. */
    private static final class FailingStore extends ForwardingKvStore {
        volatile boolean failing;

        @Override
        public void write(WriteBatch batch, Durability durability) {
            if (failing) {
                throw new org.xtreemfs.foundation.kv.KvException("crash before this write");
            }
            super.write(batch, durability);
        }
    }

    @Test
    void aCrashBeforeTheBatchedWriteLeavesEveryDeletionToBeRedoneAndAfterItNone() throws Exception {
        // Proves the batch is all or nothing: when its one write does not happen (a crash, or a failed write) every
        // file keeps its queue entry and its records, so a restarted OSD deletes each again; once the write happened a
        // restart finds none left to delete and nothing of the files.
        FailingStore metadata = new FailingStore();
        List<String> withoutObjects;
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000);
            XLocVersions versions = new XLocVersions(metadata);
            StorageStage storage = stage(store, queue, versions);
            try {
                withoutObjects = filesWithoutObjects(store, versions, 10);
                assertThat(queue.enqueueAll(withoutObjects)).isTrue();
                metadata.failing = true;
                new DeletionScheduler(queue, storage, 1_000).dispatchDue();
                metadata.failing = false;
                // In this process: every one queued again (due at once), none lost.
                assertThat(queue.pendingCount()).isEqualTo(10);
                assertThat(queue.takeDue()).containsExactlyInAnyOrderElementsOf(withoutObjects);
            } finally {
                storage.close();
            }
        }
        // After a restart on what the store holds: every entry and record is still there.
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000);
            XLocVersions versions = new XLocVersions(metadata);
            assertThat(queue.pendingCount()).isEqualTo(10);
            for (String fileId : withoutObjects) {
                assertThat(stored(metadata, fileId)).as(fileId).isEqualTo(SIZE_RECORD);
            }
            StorageStage storage = stage(store, queue, versions);
            try {
                assertThat(new DeletionScheduler(queue, storage, 1_000).dispatchDue()).isEqualTo(10);
            } finally {
                storage.close();
            }
        }
        assertThat(new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000).pendingCount()).isZero();
        for (String fileId : withoutObjects) {
            assertThat(stored(metadata, fileId)).as(fileId).isEqualTo(FileMetadata.EMPTY);
        }
    }

    /** The store, with its existence check failing for the file {@link #failing} names (none: null). */
    private static final class FailingExists {
        volatile String failing;

        ObjectStorage wrap(ObjectStore store) {
            return (ObjectStorage) java.lang.reflect.Proxy.newProxyInstance(ObjectStorage.class.getClassLoader(),
                    new Class<?>[] {ObjectStorage.class}, (proxy, method, arguments) -> {
                        if (method.getName().equals("exists") && arguments[0].equals(failing)) {
                            throw new java.io.UncheckedIOException(new java.io.IOException("stat failed"));
                        }
                        try {
                            return method.invoke(store, arguments);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    @Test
    void aDispatchFailingMidwayLeavesNoDeletionInProgressAndNoFileBlocked() throws Exception {
        // Proves a failure in the middle of a poll's hand-over (here the existence check of one file throws) strands
        // nothing: the files after it are still handed over, the failed one is due again and deleted by the next poll
        // (its file's work order released, not waiting forever), and no entry stays "in progress". Before, the
        // exception ended the poll: the failed file and every one after it stayed in progress for good.
        ThreadRecordingStore metadata = new ThreadRecordingStore();
        FailingExists failure = new FailingExists();
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 1_000);
            XLocVersions versions = new XLocVersions(metadata);
            StorageStage storage = new StorageStage(failure.wrap(store), queue, 2, 1_000, true, SystemClock.INSTANCE,
                    request -> { }, null, ReadResponse::getDefaultInstance, versions,
                    new StorageHealth("osd", 5, System::nanoTime));
            try {
                List<String> files = filesWithoutObjects(store, versions, 10);
                assertThat(queue.enqueueAll(files)).isTrue();
                failure.failing = files.get(4);
                DeletionScheduler scheduler = new DeletionScheduler(queue, storage, 1_000);
                assertThat(scheduler.dispatchDue()).isEqualTo(9);
                assertThat(queue.pendingCount()).isEqualTo(1);
                assertThat(queue.isPending(files.get(4))).isTrue();

                failure.failing = null;
                assertThat(scheduler.dispatchDue()).isEqualTo(1);
                assertThat(queue.pendingCount()).isZero();
                for (String fileId : files) {
                    assertThat(stored(metadata, fileId)).as(fileId).isEqualTo(FileMetadata.EMPTY);
                }
            } finally {
                storage.close();
            }
        }
    }

    @Test
    void aBacklogLargerThanOneTakeIsHandedOverInOneDispatch() throws Exception {
        // Proves the bound on one take (DeletionQueue.TAKE_MAX) does not slow a backlog down to one take per poll:
        // dispatchDue takes again while a take was full and storage took it all.
        ThreadRecordingStore metadata = new ThreadRecordingStore();
        try (ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata)) {
            DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 0, 10_000);
            StorageStage storage = stage(store, queue, new XLocVersions(metadata));
            try {
                List<String> files = new java.util.ArrayList<>();
                for (int i = 0; i < DeletionQueue.TAKE_MAX + 6; i++) {
                    files.add("vol:" + (1_000 + i));
                }
                assertThat(queue.enqueueAll(files)).isTrue();
                assertThat(new DeletionScheduler(queue, storage, 1_000).dispatchDue()).isEqualTo(files.size());
                assertThat(queue.pendingCount()).isZero();
            } finally {
                storage.close();
            }
        }
    }

    /** A store whose first synced write waits until {@link #release} opens, counting synced writes. */
    private static final class BlockingSyncStore extends ForwardingKvStore {
        final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger syncedWrites = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void write(WriteBatch batch, Durability durability) {
            if (durability == Durability.SYNC && syncedWrites.getAndIncrement() == 0) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.write(batch, durability);
        }
    }

    @Test
    void batchesArrivingWhileARecordSyncsShareTheNextSyncedWrite() throws Exception {
        // Proves concurrent OSD_DELETE_FILES calls are recorded with one synced write for all that waited (group
        // commit), each answered only after it, and each recorded: 5 batches cost 2 synced writes (the first alone,
        // the 4 that arrived during its sync together), not 5.
        BlockingSyncStore metadata = new BlockingSyncStore();
        DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 60_000, 1_000);
        DeletionScheduler scheduler = new DeletionScheduler(queue, null, 1_000);
        java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(5);
        java.util.concurrent.atomic.AtomicInteger recorded = new java.util.concurrent.atomic.AtomicInteger();
        DeletionScheduler.Answer answer = new DeletionScheduler.Answer() {
            @Override
            public void recorded() {
                recorded.incrementAndGet();
                answered.countDown();
            }

            @Override
            public void failed(org.xtreemfs.foundation.rpc.RpcException error) {
                answered.countDown();
            }
        };
        try {
            scheduler.record(List.of("vol:1", "vol:2"), answer);
            assertThat(metadata.entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 4; i++) {
                scheduler.record(List.of("vol:" + (10 + i), "vol:" + (20 + i)), answer);
            }
            assertThat(answered.getCount()).isEqualTo(5); // none answered before its write is durable
            metadata.release.countDown();
            assertThat(answered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(recorded.get()).isEqualTo(5);
            assertThat(metadata.syncedWrites.get()).isEqualTo(2);
            DeletionQueue afterRestart = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 60_000, 1_000);
            assertThat(afterRestart.pendingCount()).isEqualTo(10);
        } finally {
            scheduler.close();
        }
    }

    @Test
    void batchesStillWaitingAtShutdownAreAnsweredAndNotRecorded() throws Exception {
        // Proves a batch whose record never ran is answered (failed) at close, not left to the caller's timeout.
        BlockingSyncStore metadata = new BlockingSyncStore();
        DeletionQueue queue = new DeletionQueue(metadata, null, SystemClock.INSTANCE, 60_000, 1_000);
        DeletionScheduler scheduler = new DeletionScheduler(queue, null, 1_000);
        java.util.List<String> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
        DeletionScheduler.Answer answer = new DeletionScheduler.Answer() {
            @Override
            public void recorded() {
                answers.add("recorded");
            }

            @Override
            public void failed(org.xtreemfs.foundation.rpc.RpcException error) {
                answers.add("failed");
            }
        };
        scheduler.record(List.of("vol:1"), answer);
        assertThat(metadata.entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        scheduler.record(List.of("vol:2"), answer); // its record task waits behind the blocked first record
        scheduler.close(); // interrupts the first record's wait (its write then happens) and drops the second's task
        await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 2);
        assertThat(answers).containsExactlyInAnyOrder("recorded", "failed");
        assertThat(queue.isPending("vol:1")).isTrue();
        assertThat(queue.isPending("vol:2")).isFalse();
    }

    /** The file's size record in the store (as a restarted OSD reads it). */
    private static FileMetadata stored(org.xtreemfs.foundation.kv.KvStore metadata, String fileId) throws Exception {
        return new FileMetadataRecords(metadata).get(fileId);
    }
}
