package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectReadAheadTest {
    private static final int MIB = 1 << 20;
    private static final String FILE = "volume-1:7";

    @TempDir
    Path root;

    /** Object numbers handed to the reader, in order (paths are root/fileId/objectNumber). */
    private final List<Long> readAhead = new ArrayList<>();

    private ObjectReadAhead recording(long bytesAhead) throws IOException {
        return new ObjectReadAhead((fileId, object) -> root.resolve(fileId).resolve(Long.toString(object)),
                bytesAhead, path -> readAhead.add(Long.parseLong(path.getFileName().toString())));
    }

    private static void wholeObject(ObjectReadAhead ahead, StripeLayout layout, long object) {
        ahead.afterRead(FILE, layout, object, 0, layout.objectSizeBytes(), layout.objectSizeBytes());
    }

    /** Reads {@code objects} whole, in this order, through a read-ahead of 1 MiB objects and {@code bytesAhead}. */
    private List<Long> afterWholeReadsOf(long bytesAhead, long... objects) throws IOException {
        StripeLayout layout = StripeLayout.single(MIB);
        ObjectReadAhead ahead = recording(bytesAhead);
        for (long object : objects) {
            wholeObject(ahead, layout, object);
        }
        return readAhead;
    }

    @Test
    void aSequentialStreamReadsItsNextObjectsAheadEachOnce() throws IOException {
        StripeLayout layout = StripeLayout.single(MIB);
        ObjectReadAhead ahead = recording(4L * MIB);
        wholeObject(ahead, layout, 0);
        assertThat(readAhead).as("one read is no stream yet").isEmpty();
        wholeObject(ahead, layout, 1);
        assertThat(readAhead).containsExactly(2L, 3L, 4L, 5L);
        wholeObject(ahead, layout, 2);
        wholeObject(ahead, layout, 3);
        assertThat(readAhead).as("each later read adds the one object now in reach").containsExactly(2L, 3L, 4L, 5L,
                6L, 7L);
        wholeObject(ahead, layout, 3);
        assertThat(readAhead).as("the same object again adds nothing").hasSize(6);
    }

    @Test
    void onAStripeOnlyThisOsdsObjectsAreReadAhead() throws IOException {
        StripeLayout layout = new StripeLayout(MIB, 3, 1);
        ObjectReadAhead ahead = recording(4L * MIB);
        wholeObject(ahead, layout, 1);
        wholeObject(ahead, layout, 4);
        assertThat(readAhead).containsExactly(7L, 10L, 13L, 16L);
    }

    @Test
    void permutedReadsOfOneStreamStillReadAheadAndNothingTwice() throws IOException {
        // A client's concurrent requests arrive in any order.
        assertThat(afterWholeReadsOf(4L * MIB, 1, 0, 3, 2)).containsExactly(2L, 3L, 4L, 5L, 6L, 7L);
    }

    @Test
    void randomReadsStartNoReadAhead() throws IOException {
        StripeLayout layout = StripeLayout.single(MIB);
        ObjectReadAhead ahead = recording(4L * MIB);
        // 4 KiB reads, even at objects' ends and of neighbouring objects
        for (long object = 0; object < 8; object++) {
            ahead.afterRead(FILE, layout, object, MIB - 4096, 4096, 4096);
        }
        // reads that stop before the object's end
        ahead.afterRead(FILE, layout, 10, 0, MIB / 2, MIB / 2);
        ahead.afterRead(FILE, layout, 11, 0, MIB / 2, MIB / 2);
        // whole objects far apart
        for (long object = 100; object < 1000; object += 100) {
            wholeObject(ahead, layout, object);
        }
        assertThat(readAhead).isEmpty();
    }

    @Test
    void aShortReadEndsTheStreamThere() throws IOException {
        // The object's data ended before the read did: the file's end is here, nothing after it to read.
        StripeLayout layout = StripeLayout.single(MIB);
        ObjectReadAhead ahead = recording(4L * MIB);
        wholeObject(ahead, layout, 0);
        ahead.afterRead(FILE, layout, 1, 0, MIB, 1000);
        assertThat(readAhead).isEmpty();
    }

    @Test
    void aJumpStartsANewStreamThere() throws IOException {
        // 0, 1 again at the end: back to the start reads ahead again, the pages may be gone.
        assertThat(afterWholeReadsOf(2L * MIB, 0, 1, 500, 501, 0, 1)).containsExactly(2L, 3L, 502L, 503L, 2L, 3L);
    }

    @Test
    void objectsLargerThanTheWindowAreNotReadAhead() throws IOException {
        StripeLayout layout = StripeLayout.single(4 * MIB);
        ObjectReadAhead ahead = recording(2L * MIB);
        wholeObject(ahead, layout, 0);
        wholeObject(ahead, layout, 1);
        assertThat(readAhead).isEmpty();
    }

    @Test
    void smallObjectsAreReadAheadAtMostSixteenAtATime() throws IOException {
        StripeLayout layout = StripeLayout.single(128 * 1024);
        ObjectReadAhead ahead = recording(16L * MIB);
        wholeObject(ahead, layout, 0);
        wholeObject(ahead, layout, 1);
        assertThat(readAhead).hasSize(ObjectReadAhead.OBJECTS_AHEAD_MAX).startsWith(2L).endsWith(17L);
    }

    @Test
    void readingIntoThePageCacheCountsObjectsAndSkipsMissingOnes() throws IOException {
        Files.write(root.resolve("object"), new byte[3 * 4096 + 17]);
        try (ObjectReadAhead ahead = new ObjectReadAhead((fileId, object) -> root.resolve("unused"), MIB)) {
            ahead.readIntoPageCache(root.resolve("object"));
            ahead.readIntoPageCache(root.resolve("missing"));
            assertThat(ahead.objectsReadAhead()).isEqualTo(1);
        }
    }

    @Test
    void aStoreReadsAheadOnlyWhenAskedAndNeverWithDirectIo() throws IOException {
        try (ObjectStore store = ObjectStore.open(root.resolve("plain"))) {
            assertThat(store.readsAhead()).isFalse();
            store.readAhead(0);
            assertThat(store.readsAhead()).isFalse();
            store.readAhead(4L * MIB);
            assertThat(store.readsAhead()).isTrue();
        }
        try (ObjectStore store = ObjectStore.open(root.resolve("direct"), StorageDevice.NONE, true)) {
            store.readAhead(4L * MIB);
            assertThat(store.readsAhead()).isFalse();
        }
    }
}
