package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;

class DeletionQueueTest {
    @TempDir
    Path folder;

    private final ManualClock clock = new ManualClock();
    private RocksKvStore store;

    private RocksKvStore reopenStore() {
        if (store != null) {
            store.close();
        }
        store = RocksKvStore.open(RocksKvOptions.defaults(folder.resolve("metadata")));
        return store;
    }

    private DeletionQueue queue(long delayMs, int pendingMax) throws IOException {
        if (store == null) {
            reopenStore();
        }
        return new DeletionQueue(store, folder.resolve("deletion-queue"), clock, delayMs, pendingMax);
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void entriesBecomeDueOnlyAfterTheDelay() throws IOException {
        // Proves a deletion is not handed out before osd.deletion.delayMs has passed.
        DeletionQueue queue = queue(60_000, 100);
        assertThat(queue.enqueue("v:1")).isTrue();
        clock.advanceMillis(59_999);
        assertThat(queue.takeDue()).isEmpty();
        assertThat(queue.nextDueMillis()).hasValue(clock.wallClockMillis() + 1);
        clock.advanceMillis(1);
        assertThat(queue.takeDue()).containsExactly("v:1");
        assertThat(queue.takeDue()).isEmpty();
        assertThat(queue.isPending("v:1")).isTrue();
        queue.complete("v:1");
        assertThat(queue.pendingCount()).isZero();
    }

    @Test
    void pendingDeletionsResumeAfterARestart() throws IOException {
        // Proves entries written before a restart (store closed and reopened) are found by a new queue, with
        // their due times, and that completed entries stay gone.
        DeletionQueue before = queue(1_000, 100);
        before.enqueue("v:1");
        before.enqueue("weird/id:2");
        clock.advanceMillis(1_000);
        assertThat(before.takeDue()).containsExactly("v:1", "weird/id:2");
        before.complete("v:1");

        reopenStore();
        DeletionQueue after = queue(1_000, 100);
        assertThat(after.pendingCount()).isEqualTo(1);
        assertThat(after.takeDue()).containsExactly("weird/id:2");
        after.complete("weird/id:2");
        reopenStore();
        assertThat(queue(1_000, 100).pendingCount()).isZero();
    }

    @Test
    void entriesDoNotShowUpAsFileMetadata() throws IOException {
        // Proves the entries' key prefix keeps them apart from the file metadata kept in the same store.
        DeletionQueue queue = queue(1_000, 100);
        queue.enqueue("v:1");
        try (ObjectStore objects = new ObjectStore(folder.resolve("objects"), store)) {
            assertThat(objects.metadata("v:1")).isEqualTo(FileMetadata.EMPTY);
        }
    }

    @Test
    void entriesOfTheOldOneFilePerEntryFolderAreImported() throws IOException {
        // Proves an OSD upgraded from the folder-based queue keeps its pending deletions with their due times,
        // ignores a never-renamed temp file, and removes the old folder.
        Path legacy = Files.createDirectories(folder.resolve("deletion-queue"));
        Files.writeString(legacy.resolve(FileIds.escape("v:7")), "5000\n", StandardCharsets.US_ASCII);
        Files.writeString(legacy.resolve(FileIds.escape("v:8") + ".tmp"), "1", StandardCharsets.US_ASCII);
        DeletionQueue queue = queue(1_000, 100);
        assertThat(queue.pendingCount()).isEqualTo(1);
        assertThat(queue.nextDueMillis()).hasValue(5000);
        assertThat(legacy).doesNotExist();
        reopenStore();
        assertThat(queue(1_000, 100).nextDueMillis()).hasValue(5000);
    }

    @Test
    void anEntryWithoutDataIsUnsyncedUntilDataArrivesAndSurvivesAProcessRestart() throws IOException {
        // Proves an entry of a file holding nothing is buffered (not synced), that syncBeforeData syncs it (and
        // every other unsynced entry), and that a buffered entry is in the WAL, so a restart still finds it.
        DeletionQueue queue = queue(1_000, 100);
        queue.enqueue("v:1", false);
        queue.enqueue("v:2", false);
        queue.enqueue("v:3", true);
        assertThat(queue.isUnsynced("v:1")).isTrue();
        assertThat(queue.isUnsynced("v:3")).isFalse();
        queue.syncBeforeData("v:3");
        assertThat(queue.isUnsynced("v:1")).isTrue();
        queue.syncBeforeData("v:1");
        assertThat(queue.isUnsynced("v:1")).isFalse();
        assertThat(queue.isUnsynced("v:2")).isFalse();
        queue.enqueue("v:4", false);

        reopenStore();
        DeletionQueue after = queue(1_000, 100);
        assertThat(after.pendingCount()).isEqualTo(4);
        assertThat(after.isUnsynced("v:4")).isFalse();
    }

    @Test
    void aFullQueueRefusesAndARetriedEntryIsDueAgain() throws IOException {
        // Proves the queue is bounded and retryLater hands an entry out again.
        DeletionQueue queue = queue(0, 2);
        assertThat(queue.enqueue("v:1")).isTrue();
        assertThat(queue.enqueue("v:2")).isTrue();
        assertThat(queue.enqueue("v:1")).isTrue();
        assertThat(queue.enqueue("v:3")).isFalse();
        assertThat(queue.takeDue()).containsExactly("v:1", "v:2");
        queue.retryLater("v:2");
        queue.complete("v:1");
        assertThat(queue.takeDue()).containsExactly("v:2");
    }

    @Test
    void aBatchIsRecordedInOneSyncedWriteWhollyOrNotAtAllAndSurvivesARestart() throws IOException {
        // Proves enqueueAll (OSD_DELETE_FILES) records every new file of a batch with one synced write, keeps a
        // pending file's earlier due time, refuses a batch that would pass pendingMax without recording any of it,
        // and that a recorded batch is found after a restart.
        DeletionQueue queue = queue(1_000, 4);
        assertThat(queue.enqueue("v:1")).isTrue();
        clock.advanceMillis(500);
        long syncedBefore = store.counts().syncedBatches();
        assertThat(queue.enqueueAll(List.of("v:1", "v:2", "v:3", "v:2"))).isTrue();
        assertThat(store.counts().syncedBatches() - syncedBefore).as("one synced write for the batch").isEqualTo(1);
        assertThat(queue.pendingCount()).isEqualTo(3);
        assertThat(queue.enqueueAll(List.of("v:4", "v:5"))).as("past pendingMax 4").isFalse();
        assertThat(queue.isPending("v:4")).as("a refused batch records none of its files").isFalse();
        clock.advanceMillis(500);
        assertThat(queue.takeDue()).as("v:1 kept its first due time").containsExactly("v:1");

        reopenStore();
        DeletionQueue after = queue(1_000, 4);
        clock.advanceMillis(500);
        assertThat(after.takeDue()).containsExactly("v:1", "v:2", "v:3");
    }

    @Test
    void aTakeHandsOutAtMostTakeMaxEntriesEarliestDueFirst() throws IOException {
        // Proves takeDue is bounded (TAKE_MAX per take) and goes by due time: an entry due later than a backlog is
        // handed out after the backlog even though its file id sorts first, and nothing is handed out twice or lost.
        DeletionQueue queue = queue(1_000, 10_000);
        List<String> backlog = new java.util.ArrayList<>();
        for (int i = 0; i < DeletionQueue.TAKE_MAX + 6; i++) {
            backlog.add("v:" + (1_000 + i));
        }
        assertThat(queue.enqueueAll(backlog)).isTrue();
        clock.advanceMillis(10);
        assertThat(queue.enqueueAll(List.of("a:0"))).isTrue();
        clock.advanceMillis(1_000);

        List<String> first = queue.takeDue();
        assertThat(first).hasSize(DeletionQueue.TAKE_MAX).doesNotContain("a:0");
        assertThat(queue.nextDueMillis()).isPresent();
        List<String> second = queue.takeDue();
        assertThat(second).hasSize(7).contains("a:0").doesNotContainAnyElementsOf(first);
        assertThat(queue.takeDue()).isEmpty();
        assertThat(queue.nextDueMillis()).isEmpty();
        assertThat(queue.pendingCount()).isEqualTo(backlog.size() + 1);
        queue.retryLater("a:0");
        assertThat(queue.nextDueMillis()).hasValue(clock.wallClockMillis()); // its own due time, waiting again
        assertThat(queue.takeDue()).containsExactly("a:0");
    }

    @Test
    void batchesRecordedTogetherAreTakenOrRefusedEachWholeInOneWrite() throws IOException {
        // Proves enqueueBatches (OSD_DELETE_FILES calls recorded together) takes each batch whole or refuses it whole
        // against pendingMax, in order, with files shared between batches counted once, and survives a restart.
        DeletionQueue queue = queue(0, 5);
        boolean[] taken = queue.enqueueBatches(List.of(List.of("v:1", "v:2"), List.of("v:2", "v:3", "v:4", "v:5"),
                List.of("v:6", "v:7"), List.of("v:5")));
        assertThat(taken).containsExactly(true, true, false, true);
        assertThat(queue.pendingCount()).isEqualTo(5);
        assertThat(queue(0, 5).takeDue()).containsExactly("v:1", "v:2", "v:3", "v:4", "v:5");
    }
}
