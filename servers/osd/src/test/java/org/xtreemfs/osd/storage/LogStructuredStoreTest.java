package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LogStructuredStoreTest {
    private static final String FILE = "volume-1:42";
    private static final StripeLayout LAYOUT = StripeLayout.single(16 * 1024);
    private static final LogStructuredStore.Options SMALL = new LogStructuredStore.Options(64 * 1024, 25);

    @TempDir
    Path root;

    private LogStructuredStore log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private LogStructuredStore reopen(LogStructuredStore.Options options) throws IOException {
        if (log != null) {
            log.close();
        }
        log = LogStructuredStore.open(root.resolve("log-osd"), StorageDevice.NONE, options);
        return log;
    }

    private static ByteBuffer bytes(int length, Random random) {
        byte[] data = new byte[length];
        random.nextBytes(data);
        return ByteBuffer.wrap(data);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void behavesLikeTheConventionalLayoutThroughWritesTruncatesDeletesCompactionAndReopens(long seed)
            throws IOException {
        // Proves the log layout is a drop-in for the conventional one: the same seeded operations on both give the
        // same bytes, sizes, epochs and stored objects at every step, across compactions and reopens.
        Random random = new Random(seed);
        List<String> files = List.of("v:1", "v:2", "w:7");
        try (ObjectStore reference = ObjectStore.open(root.resolve("conventional-osd"))) {
            reopen(SMALL);
            for (int step = 0; step < 600; step++) {
                String file = files.get(random.nextInt(files.size()));
                int choice = random.nextInt(100);
                if (choice < 80) {
                    long object = random.nextInt(6);
                    int offset = random.nextInt(LAYOUT.objectSizeBytes());
                    int length = random.nextInt(Math.min(8192, LAYOUT.objectSizeBytes() - offset) + 1);
                    ByteBuffer data = bytes(length, random);
                    int epoch = random.nextInt(3);
                    boolean sync = random.nextBoolean();
                    ObjectStorage.WriteOutcome expected = reference.write(file, LAYOUT, object, offset,
                            data.duplicate(), epoch, sync);
                    ObjectStorage.WriteOutcome actual = log.write(file, LAYOUT, object, offset, data, epoch, sync);
                    assertThat(actual).as("step %d", step).isEqualTo(expected);
                } else if (choice < 90) {
                    long size = random.nextInt(6 * LAYOUT.objectSizeBytes() + 1);
                    int epoch = random.nextInt(4);
                    assertThat(log.truncate(file, LAYOUT, size, epoch))
                            .isEqualTo(reference.truncate(file, LAYOUT, size, epoch));
                } else if (choice < 93) {
                    reference.deleteFile(file);
                    log.deleteFile(file);
                } else if (choice < 97) {
                    log.compact(random.nextInt(64 * 1024) + 1);
                } else {
                    reopen(SMALL);
                }
                if (step % 25 == 0 || step == 599) {
                    for (String each : files) {
                        assertSame(reference, each, step);
                    }
                }
            }
            while (log.needsCompaction()) {
                log.compact(Long.MAX_VALUE);
            }
            reopen(SMALL);
            for (String each : files) {
                assertSame(reference, each, -1);
            }
        }
    }

    private void assertSame(ObjectStore reference, String file, int step) throws IOException {
        assertThat(log.metadata(file)).as("metadata of %s at step %d", file, step)
                .isEqualTo(reference.metadata(file));
        assertThat(log.storedObjects(file)).as("objects of %s at step %d", file, step)
                .isEqualTo(reference.storedObjects(file));
        assertThat(log.holdsAnything(file)).isEqualTo(reference.holdsAnything(file));
        for (long object = 0; object < 7; object++) {
            assertThat(log.read(file, LAYOUT, object, 0, LAYOUT.objectSizeBytes()))
                    .as("object %d of %s at step %d", object, file, step)
                    .isEqualTo(reference.read(file, LAYOUT, object, 0, LAYOUT.objectSizeBytes()));
            assertThat(log.read(file, LAYOUT, object, 1000, 3000))
                    .isEqualTo(reference.read(file, LAYOUT, object, 1000, 3000));
        }
    }

    @Test
    void aTornAppendAtTheEndOfTheLogIsCutOffAndNeverServed() throws IOException {
        // Proves what a crash mid-append leaves (a partial record, or a whole one with a bad checksum) is dropped on
        // open, the acknowledged writes before it stay, and the log appends cleanly after it.
        Random random = new Random(7);
        byte[] first = bytes(4096, random).array();
        byte[] second = bytes(4096, random).array();
        reopen(SMALL).write(FILE, LAYOUT, 0, 0, ByteBuffer.wrap(first), 0, true);
        log.write(FILE, LAYOUT, 1, 0, ByteBuffer.wrap(second), 0, true);
        long validBytes = log.statistics().logBytes();
        log.close();
        log = null;
        Path segment = lastSegment();
        // A record cut after 3000 of its bytes, as a crash in the middle of the write leaves it.
        ByteBuffer torn = new LogRecord(FILE, 2, 0, 2L * LAYOUT.objectSizeBytes(), 0, bytes(4096, random)).encode();
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            channel.write(torn.limit(3000));
        }
        reopen(SMALL);
        assertThat(log.statistics().logBytes()).isEqualTo(validBytes);
        assertThat(Files.size(segment)).isEqualTo(validBytes);
        assertThat(log.read(FILE, LAYOUT, 0, 0, 4096)).isEqualTo(first);
        assertThat(log.read(FILE, LAYOUT, 1, 0, 4096)).isEqualTo(second);
        assertThat(log.storedObjects(FILE)).containsExactly(0L, 1L);
        assertThat(log.metadata(FILE).sizeBytes()).isEqualTo(LAYOUT.objectSizeBytes() + 4096L);
        log.close();
        log = null;
        // A whole record whose data was not all written (a bit flipped): its checksum fails.
        ByteBuffer whole = new LogRecord(FILE, 2, 0, 2L * LAYOUT.objectSizeBytes(), 0, bytes(4096, random)).encode();
        whole.put(whole.limit() - 1, (byte) ~whole.get(whole.limit() - 1));
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            channel.write(whole);
        }
        reopen(SMALL);
        assertThat(log.storedObjects(FILE)).containsExactly(0L, 1L);
        assertThat(log.read(FILE, LAYOUT, 2, 0, 4096)).isEmpty();
        byte[] third = bytes(100, random).array();
        log.write(FILE, LAYOUT, 2, 0, ByteBuffer.wrap(third), 0, true);
        reopen(SMALL);
        assertThat(log.read(FILE, LAYOUT, 2, 0, 100)).isEqualTo(third);
        assertThat(log.read(FILE, LAYOUT, 0, 0, 4096)).isEqualTo(first);
    }

    @Test
    void corruptionInASealedSegmentFailsTheOpenNamingTheSegment() throws IOException {
        Random random = new Random(8);
        reopen(SMALL);
        for (int i = 0; i < 40; i++) {
            log.write(FILE, LAYOUT, i % 5, 0, bytes(4096, random), 0, false);
        }
        assertThat(log.statistics().segments()).isGreaterThan(1);
        log.close();
        log = null;
        Path firstSegment;
        try (Stream<Path> segments = Files.list(root.resolve("log-osd").resolve(LogStructuredStore.LOG_FOLDER))) {
            firstSegment = segments.sorted().findFirst().orElseThrow();
        }
        // Forget the persisted index so that the open replays (and checks) the whole log.
        try (var metadata = org.xtreemfs.foundation.kv.RocksKvStore.open(org.xtreemfs.foundation.kv.RocksKvOptions
                .defaults(root.resolve("log-osd").resolve(ObjectStore.METADATA_FOLDER)))) {
            metadata.write(new org.xtreemfs.foundation.kv.WriteBatch().delete(LogStructuredStore.APPLIED_KEY),
                    org.xtreemfs.foundation.kv.Durability.SYNC);
        }
        try (FileChannel channel = FileChannel.open(firstSegment, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 100);
        }
        assertThatThrownBy(() -> reopen(SMALL)).isInstanceOf(IOException.class)
                .hasMessageContaining(firstSegment.getFileName().toString()).hasMessageContaining("sealed");
        log = null;
    }

    @Test
    void compactionBoundsDeadBytesAndKeepsEveryLiveByteAcrossAReopen() throws IOException {
        // Proves the space bound: after compaction the sealed segments hold at most 25 % dead bytes, the log is at
        // most live / 0.75 plus the head segment, and every byte still reads back, also after a reopen.
        Random random = new Random(9);
        reopen(SMALL);
        byte[][] latest = new byte[8][];
        for (int i = 0; i < 400; i++) {
            int object = random.nextInt(8);
            latest[object] = bytes(4096, random).array();
            log.write(FILE, LAYOUT, object, 0, ByteBuffer.wrap(latest[object]), 0, false);
        }
        LogStructuredStore.Statistics before = log.statistics();
        assertThat(log.needsCompaction()).isTrue();
        while (log.needsCompaction()) {
            assertThat(log.compact(32 * 1024)).isPositive();
        }
        LogStructuredStore.Statistics after = log.statistics();
        assertThat(after.sealedDeadBytes() * 100).isLessThanOrEqualTo(after.sealedBytes() * 25);
        assertThat(after.logBytes()).isLessThan(before.logBytes() / 10);
        assertThat((double) after.logBytes()).isLessThanOrEqualTo(after.liveBytes() / 0.75 + 64 * 1024 + 4096);
        assertThat(after.liveBytes()).isEqualTo(8 * 4096);
        for (int object = 0; object < 8; object++) {
            assertThat(log.read(FILE, LAYOUT, object, 0, 4096)).isEqualTo(latest[object]);
        }
        reopen(SMALL);
        assertThat(log.statistics().liveBytes()).isEqualTo(8 * 4096);
        for (int object = 0; object < 8; object++) {
            assertThat(log.read(FILE, LAYOUT, object, 0, 4096)).isEqualTo(latest[object]);
        }
    }

    @Test
    void theCompactorKeepsToItsRate() throws Exception {
        // Proves the bandwidth bound: at 256 KiB/s the compactor does at most rate x time + burst + one record of
        // work, and it does make progress.
        Random random = new Random(10);
        reopen(SMALL);
        for (int i = 0; i < 1000; i++) {
            log.write(FILE, LAYOUT, random.nextInt(4), 0, bytes(4096, random), 0, false);
        }
        long rateBytesPerSecond = 256 * 1024;
        long startNanos = System.nanoTime();
        try (LogCompactor compactor = new LogCompactor(log, rateBytesPerSecond).start()) {
            Thread.sleep(1500);
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long compacted = log.statistics().compactedBytes();
        assertThat(compacted).isPositive();
        assertThat((double) compacted).isLessThanOrEqualTo(rateBytesPerSecond * (seconds + LogCompactor.BURST_SECONDS)
                + 2 * (4096 + 128));
    }

    @Test
    void badArgumentsAreRefusedNamingTheValue() throws IOException {
        reopen(SMALL);
        assertThatThrownBy(() -> log.write(FILE, LAYOUT, 0, 16 * 1024 - 10, ByteBuffer.allocate(20), 0, false))
                .hasMessageContaining("[16374, 16394)");
        assertThatThrownBy(() -> log.write("a\0b", LAYOUT, 0, 0, ByteBuffer.allocate(1), 0, false))
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> new LogStructuredStore.Options(10, 25)).hasMessageContaining("10");
        assertThatThrownBy(() -> new LogStructuredStore.Options(1 << 20, 0)).hasMessageContaining("0");
    }

    private Path lastSegment() throws IOException {
        try (Stream<Path> segments = Files.list(root.resolve("log-osd").resolve(LogStructuredStore.LOG_FOLDER))) {
            return segments.sorted().reduce((a, b) -> b).orElseThrow();
        }
    }
}
