package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DirtyObjectsTest {
    private static final String FILE = "volume-1:7";

    /** Every force, background or fsync, in the order made. */
    private final List<Long> forced = Collections.synchronizedList(new ArrayList<>());
    private final List<DirtyObjects> trackers = new ArrayList<>();

    @AfterEach
    void closeTrackers() {
        trackers.forEach(DirtyObjects::close);
    }

    /** Forces one object. */
    @FunctionalInterface
    private interface ObjectForcer {
        void force(String fileId, long objectNumber) throws IOException;
    }

    /** A tracker forcing every completed object at once (batches of one), one object after another. */
    private DirtyObjects tracker(ObjectForcer forcer, int backgroundThreads) {
        DirtyObjects tracker = new DirtyObjects((fileId, objects) -> {
            for (long object : objects) {
                forcer.force(fileId, object);
            }
        }, backgroundThreads, 1);
        trackers.add(tracker);
        return tracker;
    }

    private DirtyObjects recording(int backgroundThreads) {
        return tracker((fileId, objectNumber) -> forced.add(objectNumber), backgroundThreads);
    }

    private static void write(DirtyObjects tracker, long objectNumber, boolean fileExisted) {
        tracker.endWrite(tracker.beginWrite(FILE, () -> fileExisted), objectNumber);
    }

    /** An fsync whose batch forcer records what it forces; the lister answers {@code stored}. */
    private void fsync(DirtyObjects tracker, List<Long> stored) throws IOException {
        tracker.fsync(FILE, () -> stored, objects -> forced.addAll(objects));
    }

    @Test
    void aWriteAfterAnFsyncIsForcedByTheNextFsyncAndAnUnwrittenObjectIsNot() throws IOException {
        // Proves the per-file marks: the next fsync forces exactly the objects written since the last one.
        DirtyObjects tracker = recording(0);
        write(tracker, 0, false);
        write(tracker, 1, false);
        fsync(tracker, List.of(0L, 1L));
        assertThat(forced).containsExactly(0L, 1L);
        forced.clear();
        write(tracker, 1, false);
        fsync(tracker, List.of(0L, 1L));
        assertThat(forced).containsExactly(1L);
        forced.clear();
        fsync(tracker, List.of(0L, 1L));
        assertThat(forced).isEmpty();
    }

    @Test
    void aFileUnknownToTheTrackerIsForcedWhole() throws IOException {
        // Proves that a file not written since the store opened (as after a restart) has every stored object forced,
        // and so has one that existed before its first tracked write; a new file only what it was written.
        DirtyObjects tracker = recording(0);
        fsync(tracker, List.of(0L, 3L, 5L));
        assertThat(forced).containsExactly(0L, 3L, 5L);
        forced.clear();
        fsync(tracker, List.of(0L, 3L, 5L));
        assertThat(forced).as("forced whole once, the file is clean").isEmpty();

        DirtyObjects restarted = recording(0);
        write(restarted, 3, true);
        assertThat(restarted.wholly(FILE)).isTrue();
        fsync(restarted, List.of(0L, 3L, 5L));
        assertThat(forced).containsExactly(0L, 3L, 5L);
        forced.clear();
        write(restarted, 5, true);
        fsync(restarted, List.of(0L, 3L, 5L));
        assertThat(forced).containsExactly(5L);

        DirtyObjects fresh = recording(0);
        write(fresh, 2, false);
        assertThat(fresh.wholly(FILE)).isFalse();
        assertThat(fresh.marked(FILE)).containsExactly(2L);
    }

    @Test
    void aFailedFsyncForceKeepsEveryMarkForTheNextFsync() {
        // Proves that an fsync that failed leaves the objects marked: the next fsync forces them again.
        DirtyObjects tracker = recording(0);
        write(tracker, 4, false);
        assertThatThrownBy(() -> tracker.fsync(FILE, List::of, objects -> {
            throw new IOException("disk gone");
        })).hasMessageContaining("disk gone");
        assertThat(tracker.marked(FILE)).containsExactly(4L);
    }

    @Test
    void aCompletedObjectIsForcedInTheBackgroundAndTheFsyncForcesOnlyTheRest() throws Exception {
        // Proves the background force: a completed object is durable before the fsync, which forces only the tail.
        DirtyObjects tracker = recording(2);
        write(tracker, 0, false);
        tracker.completed(FILE, 0);
        write(tracker, 1, false);
        tracker.awaitBackgroundForces();
        assertThat(forced).containsExactly(0L);
        assertThat(tracker.marked(FILE)).containsExactly(1L);
        fsync(tracker, List.of(0L, 1L));
        assertThat(forced).containsExactly(0L, 1L);
        assertThat(tracker.backgroundForcesMade()).isEqualTo(1);
    }

    @Test
    void aFailedBackgroundForceIsReportedByTheNextFsyncOnceAndItsObjectForcedAgain() throws Exception {
        // Proves POSIX's rule for write-back errors: a background force that failed makes the file's next fsync fail
        // (the kernel reports such an error once, so forcing a new descriptor again would hide it), and the object
        // stays marked; the fsync after that one succeeds.
        DirtyObjects tracker = tracker((fileId, objectNumber) -> {
            throw new IOException("EIO forcing " + objectNumber);
        }, 1);
        write(tracker, 6, false);
        tracker.completed(FILE, 6);
        tracker.awaitBackgroundForces();
        assertThat(tracker.marked(FILE)).containsExactly(6L);
        assertThatThrownBy(() -> fsync(tracker, List.of(6L))).isInstanceOf(IOException.class)
                .hasMessageContaining("EIO forcing 6");
        assertThat(forced).as("the fsync forced the object again").containsExactly(6L);
        fsync(tracker, List.of(6L));
    }

    @Test
    void aWriteMarkedWhileItsObjectIsForcedInTheBackgroundStaysMarked() throws Exception {
        // Proves the generation check: a force that began before a write's mark cannot clear it, so that write is
        // forced by the next fsync.
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DirtyObjects tracker = tracker((fileId, objectNumber) -> {
            forcing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }, 1);
        write(tracker, 2, false);
        tracker.completed(FILE, 2);
        assertThat(forcing.await(10, TimeUnit.SECONDS)).isTrue();
        write(tracker, 2, false);
        release.countDown();
        tracker.awaitBackgroundForces();
        assertThat(tracker.marked(FILE)).containsExactly(2L);
        fsync(tracker, List.of(2L));
        assertThat(forced).containsExactly(2L);
    }

    @Test
    void anFsyncWaitsForTheFilesBackgroundForcesAndForcesNothingTwice() throws Exception {
        // Proves that an fsync arriving while its file's object is being forced in the background waits for it (it
        // answers only once that object is durable) and then does not force it again.
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DirtyObjects tracker = tracker((fileId, objectNumber) -> {
            forcing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            forced.add(objectNumber);
        }, 1);
        write(tracker, 0, false);
        tracker.completed(FILE, 0);
        assertThat(forcing.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> fsync = CompletableFuture.runAsync(() -> {
            try {
                fsync(tracker, List.of(0L));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(50); // not a timing assertion: only gives the fsync a chance to run ahead if it wrongly would
        assertThat(fsync).isNotDone();
        release.countDown();
        fsync.get(10, TimeUnit.SECONDS);
        assertThat(forced).containsExactly(0L);
    }

    @Test
    void anObjectDeletedUnderItsBackgroundForceIsNoFailure() throws Exception {
        // Proves that background forces, which the storage stage does not order, tolerate a truncation or deletion
        // that removed their object: the next fsync does not report a failure.
        DirtyObjects tracker = tracker((fileId, objectNumber) -> {
            throw new NoSuchFileException("object " + objectNumber);
        }, 1);
        write(tracker, 9, false);
        tracker.completed(FILE, 9);
        tracker.awaitBackgroundForces();
        tracker.truncated(FILE, 0);
        assertThat(tracker.marked(FILE)).isEmpty();
        fsync(tracker, List.of(0L));
        assertThat(forced).isEmpty();
    }

    @Test
    void aDeletedFileIsForgottenWithItsMarks() throws IOException {
        // Proves that a file deleted and written again under the same id starts from its new writes only.
        DirtyObjects tracker = recording(0);
        write(tracker, 0, false);
        write(tracker, 1, false);
        tracker.deleted(FILE);
        write(tracker, 5, false);
        fsync(tracker, List.of(5L));
        assertThat(forced).containsExactly(5L);
    }

    @Test
    void completedObjectsAreForcedInBatchesAndAnFsyncForcesAnUnfinishedBatch() throws Exception {
        // Proves the batches: completed objects are forced together once a batch is full (so their forces share the
        // file system's writes), and an fsync forces the objects of a batch that never filled.
        List<List<Long>> batches = Collections.synchronizedList(new ArrayList<>());
        DirtyObjects tracker = new DirtyObjects((fileId, objects) -> batches.add(objects), 1, 3);
        trackers.add(tracker);
        for (long object = 0; object < 5; object++) {
            write(tracker, object, false);
            tracker.completed(FILE, object);
        }
        tracker.awaitBackgroundForces();
        assertThat(batches).containsExactly(List.of(0L, 1L, 2L));
        fsync(tracker, List.of());
        assertThat(forced).containsExactly(3L, 4L);
        write(tracker, 3, false);
        tracker.completed(FILE, 3);
        assertThat(tracker.marked(FILE)).as("a batch the fsync forced starts again empty").containsExactly(3L);
    }

    @Test
    void backgroundForcesBeyondTheQueueAreSkippedAndTheirObjectsForcedByTheFsync() throws Exception {
        // Proves the bounded queue: with the one thread held and the queue full, a further completed object is not
        // queued (never a failure, never a wait), stays marked, and the fsync forces it.
        CountDownLatch release = new CountDownLatch(1);
        DirtyObjects tracker = tracker((fileId, objectNumber) -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            forced.add(objectNumber);
        }, 1);
        int objects = DirtyObjects.BACKGROUND_QUEUE_CAPACITY + 2; // one running, a full queue, one more
        for (long object = 0; object < objects; object++) {
            write(tracker, object, false);
            tracker.completed(FILE, object);
        }
        assertThat(tracker.backgroundForcesSkipped()).isGreaterThanOrEqualTo(1);
        release.countDown();
        tracker.awaitBackgroundForces();
        List<Long> inBackground = new ArrayList<>(forced);
        forced.clear();
        fsync(tracker, List.of());
        assertThat(forced).isNotEmpty().doesNotContainAnyElementsOf(inBackground);
        assertThat(inBackground.size() + forced.size()).isEqualTo(objects);
    }
}
