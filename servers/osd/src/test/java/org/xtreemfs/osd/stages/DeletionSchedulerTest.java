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
import org.xtreemfs.osd.storage.ForwardingKvStore;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StripeLayout;

/** The deletion scheduler handing due deletions to the storage stage ({@link DeletionScheduler#dispatchDue}). */
class DeletionSchedulerTest {
    private static final String NEVER_WRITTEN = "vol:1";
    private static final String WRITTEN = "vol:2";

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
}
