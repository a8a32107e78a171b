package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads left in the object's file for the transport to send from there ({@link ObjectStore#readRegion}): which reads
 * become regions, and that a region's bytes stay as its read saw them until it is released.
 */
class ObjectRegionTest {
    private static final String FILE = "volume-1:42";
    private static final int MIB = 1 << 20;
    private static final StripeLayout LAYOUT = StripeLayout.single(MIB);

    @TempDir
    Path root;

    private ObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private static ByteBuffer bytes(int length, int seed) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (seed + 7 * i);
        }
        return ByteBuffer.wrap(data);
    }

    /** The region's bytes as they are in its file now. */
    private static byte[] contents(ObjectRegion region) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) region.count());
        while (buffer.hasRemaining()) {
            if (region.channel().read(buffer, region.position() + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.position() == buffer.capacity() ? buffer.array()
                : java.util.Arrays.copyOf(buffer.array(), buffer.position());
    }

    /** Runs {@code change} on another thread and returns once that thread waits (for the region's release). */
    private static CompletableFuture<Void> waitingChange(Callable change) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread runner = new Thread(() -> {
            try {
                change.call();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "region-test-change");
        thread.set(runner);
        runner.start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> done.isDone()
                || runner.getState() == Thread.State.TIMED_WAITING);
        assertThat(done).as("the change waits for the region's release").isNotDone();
        return done;
    }

    @FunctionalInterface
    private interface Callable {
        void call() throws IOException;
    }

    /** Object 0 written whole from {@code seed}, and a region of all of it. */
    private ObjectRegion wholeObjectRegion(int seed, int truncateEpoch) throws IOException {
        store.write(FILE, LAYOUT, 0, 0, bytes(MIB, seed), truncateEpoch, false);
        return store.readRegion(FILE, LAYOUT, 0, 0, MIB);
    }

    /** {@code change} waits while the region is out, the region keeps object 0's bytes from {@code seed}, then it runs. */
    private static void changeWaitsForTheRegion(ObjectRegion region, int seed, Callable change) throws Exception {
        CompletableFuture<Void> changed = waitingChange(change);
        assertThat(contents(region)).isEqualTo(bytes(MIB, seed).array());
        region.release();
        changed.get();
    }

    @Test
    void onlyLargeReadsOfStoredBytesBecomeRegionsOfTheStoredLength() throws IOException {
        store = ObjectStore.open(root.resolve("plain"));
        store.write(FILE, LAYOUT, 0, 0, bytes(MIB, 1), 0, false);
        store.write(FILE, LAYOUT, 1, 0, bytes(100 * 1024, 2), 0, false);
        store.write(FILE, LAYOUT, 2, 0, bytes(10 * 1024, 3), 0, false);
        store.write(FILE, LAYOUT, 3, 200 * 1024, bytes(4096, 4), 0, false); // a hole before the stored bytes

        ObjectRegion whole = store.readRegion(FILE, LAYOUT, 0, 0, MIB);
        assertThat(whole.position()).isZero();
        assertThat(whole.count()).isEqualTo(MIB);
        assertThat(contents(whole)).isEqualTo(bytes(MIB, 1).array());
        whole.release();
        ObjectRegion shortObject = store.readRegion(FILE, LAYOUT, 1, 4096, MIB - 4096);
        assertThat(shortObject.position()).isEqualTo(4096);
        assertThat(shortObject.count()).as("as read() returns: up to the stored end").isEqualTo(100 * 1024 - 4096);
        shortObject.release();
        ObjectRegion sparse = store.readRegion(FILE, LAYOUT, 3, 0, MIB);
        assertThat(sparse.count()).isEqualTo(200 * 1024 + 4096);
        byte[] expected = new byte[200 * 1024 + 4096];
        System.arraycopy(bytes(4096, 4).array(), 0, expected, 200 * 1024, 4096);
        assertThat(contents(sparse)).as("the hole reads as zeros").isEqualTo(expected);
        sparse.release();

        assertThat(store.readRegion(FILE, LAYOUT, 2, 0, MIB)).as("fewer stored bytes than a region's minimum").isNull();
        assertThat(store.readRegion(FILE, LAYOUT, 1, 100 * 1024, 64 * 1024)).as("past the stored end").isNull();
        assertThat(store.readRegion(FILE, LAYOUT, 0, 0, ObjectStore.REGION_READ_BYTES_MIN - 1)).as("small read")
                .isNull();
        assertThat(store.readRegion(FILE, LAYOUT, 9, 0, MIB)).as("missing object").isNull();
        assertThat(store.regionsOut()).isZero();
    }

    @Test
    void aRegionOfAnObjectTheReadAheadReadWholeSkipsItsPageInOnce() throws IOException {
        store = ObjectStore.open(root.resolve("ahead"));
        store.readAhead(16L * MIB);
        for (long object = 0; object < 3; object++) {
            store.write(FILE, LAYOUT, object, 0, bytes(MIB, (int) object), 0, false);
        }
        // Halves of objects: no stream, so the store's own read-ahead threads read nothing ahead in this test.
        int half = MIB / 2;
        store.readRegion(FILE, LAYOUT, 0, 0, half).release();
        assertThat(store.regionPageIns()).as("an object nobody read ahead is paged in").isEqualTo(1);

        store.objectReadAhead().readIntoPageCache(FILE, 1, store.objectPath(FILE, 1));
        store.objectReadAhead().readIntoPageCache(FILE, 7, store.objectPath(FILE, 7)); // missing: not read whole
        ObjectRegion readAhead = store.readRegion(FILE, LAYOUT, 1, 0, half);
        assertThat(contents(readAhead)).isEqualTo(java.util.Arrays.copyOf(bytes(MIB, 1).array(), half));
        readAhead.release();
        assertThat(store.regionPageIns()).as("the read-ahead paged object 1 in").isEqualTo(1);

        store.readRegion(FILE, LAYOUT, 1, 0, half).release();
        store.readRegion(FILE, LAYOUT, 2, 0, half).release();
        assertThat(store.regionPageIns()).as("a read-ahead is taken once; object 2 was not read ahead").isEqualTo(3);
        assertThat(store.objectReadAhead().takeReadAhead(FILE, 7)).isFalse();
    }

    @Test
    void emulatedDevicesAndDirectIoObjectFilesReadIntoBuffers() throws IOException {
        StorageDevice emulated = DeviceEmulation.SSD.device(org.xtreemfs.foundation.clock.SystemClock.INSTANCE);
        try (ObjectStore modelled = ObjectStore.open(root.resolve("emulated"), emulated, false)) {
            modelled.write(FILE, LAYOUT, 0, 0, bytes(MIB, 1), 0, false);
            assertThat(modelled.readRegion(FILE, LAYOUT, 0, 0, MIB)).as("the device model must see the read")
                    .isNull();
        }
        store = ObjectStore.open(root.resolve("direct"), StorageDevice.NONE, true);
        ByteBuffer aligned = ByteBuffer.allocateDirect(MIB + 4096).alignedSlice(4096);
        aligned.put(bytes(MIB, 1)).flip();
        store.write(FILE, LAYOUT, 0, 0, aligned, 0, false);
        assertThat(store.readRegion(FILE, LAYOUT, 0, 0, MIB)).isNull();
    }

    @Test
    void aWriteOfTheObjectWaitsUntilTheRegionIsReleased() throws Exception {
        // Proves the region's bytes are the read's until its transfer ends: the write waits, then lands.
        store = ObjectStore.open(root);
        store.write(FILE, LAYOUT, 1, 0, bytes(MIB, 2), 0, false);
        ObjectRegion region = wholeObjectRegion(1, 0);
        store.write(FILE, LAYOUT, 1, 0, bytes(4096, 5), 0, false); // another object: no wait
        changeWaitsForTheRegion(region, 1, () -> store.write(FILE, LAYOUT, 0, 0, bytes(4096, 9), 0, false));
        assertThat(store.read(FILE, LAYOUT, 0, 0, 4096)).isEqualTo(bytes(4096, 9).array());
        assertThat(store.regionsOut()).isZero();
    }

    @Test
    void aTruncateOfTheFileWaitsUntilTheRegionIsReleasedAndTheCachedChannelStaysOpenUnderIt() throws Exception {
        // Proves a region never ends early: the truncate, which also drops the file's cached channels, waits; and a
        // deletion (which drops them without waiting: the unlinked file keeps its bytes) never closes the region's
        // channel under it.
        store = ObjectStore.open(root);
        changeWaitsForTheRegion(wholeObjectRegion(1, 0), 1, () -> store.truncate(FILE, LAYOUT, 4096, 1));
        assertThat(store.metadata(FILE).sizeBytes()).isEqualTo(4096);

        ObjectRegion beforeDeletion = wholeObjectRegion(3, 1);
        store.deleteFile(FILE);
        assertThat(beforeDeletion.channel().isOpen()).isTrue();
        assertThat(contents(beforeDeletion)).isEqualTo(bytes(MIB, 3).array());
        beforeDeletion.release();
        assertThat(beforeDeletion.channel().isOpen()).as("closed at the release, dropped from the cache").isFalse();
        beforeDeletion.release(); // idempotent
        assertThat(store.regionsOut()).isZero();
    }

    @Test
    void aWriteOnTheThreadThatSendsTheRegionGoesAhead() throws IOException {
        // That thread alone can end the transfer, so waiting would never end.
        store = ObjectStore.open(root);
        ObjectRegion region = wholeObjectRegion(1, 0);
        Thread self = Thread.currentThread();
        region.transferredBy(() -> Thread.currentThread() == self);
        store.write(FILE, LAYOUT, 0, 0, bytes(4096, 9), 0, false);
        assertThat(store.read(FILE, LAYOUT, 0, 0, 4096)).isEqualTo(bytes(4096, 9).array());
        region.release();
    }
}
