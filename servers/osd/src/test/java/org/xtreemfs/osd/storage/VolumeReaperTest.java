package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/** VolumeReaper: which files of deleted volumes it queues, at what rate, and when a volume counts as reaped. */
class VolumeReaperTest {
    @TempDir
    Path folder;

    private final ManualClock clock = new ManualClock();
    private ObjectStore store;

    @BeforeEach
    void openStore() throws IOException {
        store = new ObjectStore(folder, new InMemoryKvStore());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private void storeObject(String fileId) throws IOException {
        Files.createDirectories(store.fileFolder(fileId));
        Files.writeString(store.fileFolder(fileId).resolve("0"), "object");
    }

    private void storeMetadataOnly(String fileId) {
        store.metadataStore().write(new WriteBatch().put(fileId.getBytes(StandardCharsets.UTF_8), "5 0".getBytes(StandardCharsets.US_ASCII)),
                Durability.SYNC);
    }

    /** Deletes every due file as the storage stage would. */
    private void deleteDue(DeletionQueue deletions) throws IOException {
        for (String fileId : deletions.takeDue()) {
            store.deleteFile(fileId);
            deletions.complete(fileId);
        }
    }

    @Test
    void queuesOnlyTheDeletedVolumesFilesAtTheGivenRateUntilNothingIsLeft() throws IOException {
        // Objects and metadata-only records of the deleted volume are queued, two per round; the live
        // volume (whose id shares a prefix) is untouched; the volume is reaped once nothing is left.
        DeletionQueue deletions = new DeletionQueue(store.metadataStore(), folder.resolve("dq"), clock, 0, 100);
        VolumeReaper reaper = new VolumeReaper(store, deletions, 2);
        storeObject("gone:1");
        storeObject("gone:2");
        storeMetadataOnly("gone:3");
        storeObject("gone-not:1");
        storeMetadataOnly("gone-not:2");

        assertThat(reaper.reap(List.of("gone"))).isEqualTo(2);
        assertThat(reaper.reap(List.of("gone"))).isEqualTo(1);
        assertThat(reaper.reap(List.of("gone"))).isZero();
        assertThat(reaper.isReaped("gone")).as("files are still pending").isFalse();
        assertThat(deletions.pendingCount()).isEqualTo(3);

        deleteDue(deletions);
        assertThat(store.holdsAnything("gone:1") || store.holdsAnything("gone:3")).isFalse();
        assertThat(reaper.reap(List.of("gone"))).isZero();
        assertThat(reaper.isReaped("gone")).isTrue();
        assertThat(reaper.filesQueued()).isEqualTo(3);
        assertThat(store.exists("gone-not:1")).isTrue();
        assertThat(store.holdsAnything("gone-not:2")).isTrue();
        assertThat(deletions.isPending("gone-not:1")).isFalse();
    }

    @Test
    void aFullDeletionQueueStopsTheRoundAndTheNextOneContinues() throws IOException {
        DeletionQueue deletions = new DeletionQueue(store.metadataStore(), folder.resolve("dq"), clock, 0, 1);
        VolumeReaper reaper = new VolumeReaper(store, deletions, 1000);
        storeObject("gone:1");
        storeObject("gone:2");
        assertThat(reaper.reap(List.of("gone"))).isEqualTo(1);
        assertThat(reaper.reap(List.of("gone"))).isZero();
        deleteDue(deletions);
        assertThat(reaper.reap(List.of("gone"))).isEqualTo(1);
        deleteDue(deletions);
        assertThat(reaper.reap(List.of("gone"))).isZero();
        assertThat(reaper.isReaped("gone")).isTrue();
        assertThat(store.exists("gone:1") || store.exists("gone:2")).isFalse();
    }

    @Test
    void aRoundLooksAtNoMoreFilesThanItsBatchAndTheNextRoundsResume() throws IOException {
        // 60 files of a deleted volume, batches of 7: no round looks at (or holds) more than its batch
        // plus the files already queued, and the rounds together delete every file exactly once.
        DeletionQueue deletions = new DeletionQueue(store.metadataStore(), folder.resolve("dq"), clock, 0, 1000);
        VolumeReaper reaper = new VolumeReaper(store, deletions, 7);
        for (int inode = 1; inode <= 60; inode++) {
            if (inode % 4 == 0) {
                storeMetadataOnly("huge:" + inode);
            } else {
                storeObject("huge:" + inode);
            }
        }
        assertThat(reaper.reap(List.of("huge"))).isEqualTo(7);
        assertThat(reaper.lastRoundFilesVisited()).isEqualTo(7);
        int rounds = 1;
        int queued = 7;
        while (!reaper.isReaped("huge") && rounds < 100) {
            deleteDue(deletions);
            queued += reaper.reap(List.of("huge"));
            assertThat(reaper.lastRoundFilesVisited()).as("round %d", rounds).isLessThanOrEqualTo(7);
            rounds++;
        }
        assertThat(queued).isEqualTo(60);
        assertThat(reaper.filesQueued()).isEqualTo(60);
        assertThat(rounds).isEqualTo(10);  // 9 rounds of at most 7, and one that finds nothing left
        for (int inode = 1; inode <= 60; inode++) {
            assertThat(store.holdsAnything("huge:" + inode)).as("huge:%d", inode).isFalse();
        }
    }

    @Test
    void aVolumeWithNothingHereIsReapedAtOnce() throws IOException {
        DeletionQueue deletions = new DeletionQueue(store.metadataStore(), folder.resolve("dq"), clock, 0, 10);
        VolumeReaper reaper = new VolumeReaper(store, deletions, 10);
        assertThat(reaper.reap(List.of("elsewhere"))).isZero();
        assertThat(reaper.isReaped("elsewhere")).isTrue();
        assertThat(reaper.reap(List.of())).isZero();
    }
}
