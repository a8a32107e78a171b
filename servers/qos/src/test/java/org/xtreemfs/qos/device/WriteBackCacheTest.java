package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.device.WriteBackState.DirtyWrite;

class WriteBackCacheTest {
    private static final long OBJECT = 128 * 1024;
    private static final long GIB = 1L << 30;
    private static final long SECOND = 1_000_000_000L;
    private static final HddModel DISK = HddModel.desktop7200Rpm();
    private static final WriteBackCache<HddState> BUFFERED = WriteBackCache.osdHdd7200();

    /** Stream s writes sequentially in its own region, 100 GiB apart (10 % of the stroke). */
    private static List<RoundRobinStreams.Stream> sequentialWriters(int count) {
        List<RoundRobinStreams.Stream> streams = new ArrayList<>();
        for (int stream = 0; stream < count; stream++) {
            streams.add(RoundRobinStreams.sequential(IoKind.WRITE, stream * 100 * GIB, OBJECT));
        }
        return streams;
    }

    private static double totalBytesPerSecond(RoundRobinStreams.Outcome outcome) {
        double total = 0;
        for (int stream = 0; stream < outcome.bytes().length; stream++) {
            total += outcome.bytesPerSecond(stream);
        }
        return total;
    }

    @Test
    void anUnsyncedWriteIntoRoomIsAcknowledgedAtCopySpeed() {
        // Proves the page cache acknowledges: 128 KiB at 2 GB/s, far sooner than the media's write.
        ServiceResult<WriteBackState<HddState>> buffered =
                BUFFERED.serve(IoRequest.write(50 * GIB, OBJECT), BUFFERED.initialState(), 0);
        ServiceResult<HddState> media = DISK.serve(IoRequest.write(50 * GIB, OBJECT), DISK.initialState(), 0);
        assertThat(buffered.completionNanos()).isEqualTo(Math.round(OBJECT * 1e9 / 2_000_000_000L));
        assertThat(media.completionNanos()).isGreaterThan(10 * buffered.completionNanos());
    }

    @Test
    void aSyncedWriteOnACleanCacheIsTheMediasWriteThrough() {
        // Proves a synced write pays exactly what the write-through media charges.
        ServiceResult<WriteBackState<HddState>> synced =
                BUFFERED.serve(IoRequest.syncedWrite(50 * GIB, OBJECT), BUFFERED.initialState(), 0);
        ServiceResult<HddState> media = DISK.serve(IoRequest.write(50 * GIB, OBJECT), DISK.initialState(), 0);
        assertThat(synced.completionNanos()).isEqualTo(media.completionNanos());
    }

    @Test
    void aLoneWriterSustainsTheMediaRateOnceTheBufferIsFull() {
        // Proves sustained throughput is the media's: over 20 s at least what write-through gets, and at most the
        // zone's media rate plus the 64 MiB the buffer holds at the end.
        long durationNanos = 20 * SECOND;
        double buffered = totalBytesPerSecond(RoundRobinStreams.run(BUFFERED, sequentialWriters(1), durationNanos));
        double throughMedia = totalBytesPerSecond(RoundRobinStreams.run(DISK, sequentialWriters(1), durationNanos));
        double bufferBytesPerSecond = 64.0 * (1 << 20) * SECOND / durationNanos;
        assertThat(buffered).isGreaterThan(throughMedia);
        assertThat(buffered).isLessThanOrEqualTo(DISK.transferBytesPerSecond(0) + bufferBytesPerSecond);
    }

    @Test
    void interleavedSequentialWritersPayAPositioningPerBatchNotPerRequest() {
        // Proves the elevator: write-through, 2 and 4 interleaved writers collapse to a few MB/s (a seek and a
        // rotation per 128 KiB); buffered, they keep most of one writer's rate.
        long durationNanos = 20 * SECOND;
        double one = totalBytesPerSecond(RoundRobinStreams.run(BUFFERED, sequentialWriters(1), durationNanos));
        double[] keptMin = {0, 0, 0.75, 0, 0.5};
        for (int streams : new int[] {2, 4}) {
            double buffered = totalBytesPerSecond(
                    RoundRobinStreams.run(BUFFERED, sequentialWriters(streams), durationNanos));
            double writeThrough = totalBytesPerSecond(
                    RoundRobinStreams.run(DISK, sequentialWriters(streams), durationNanos));
            assertThat(buffered).as("%d writers", streams).isGreaterThan(keptMin[streams] * one);
            assertThat(buffered).as("%d writers", streams).isGreaterThan(5 * writeThrough);
        }
    }

    @Test
    void aReadOfDirtyDataComesFromMemoryAndAfterAFlushFromTheMedia() {
        // Proves reads of dirty ranges hit the buffer, and flush() writes them back and waits for the media.
        WriteBackState<HddState> state = BUFFERED.initialState();
        long nowNanos = 0;
        for (int object = 0; object < 4; object++) {
            ServiceResult<WriteBackState<HddState>> written =
                    BUFFERED.serve(IoRequest.write(50 * GIB + object * OBJECT, OBJECT), state, nowNanos);
            state = written.nextState();
            nowNanos = written.completionNanos();
        }
        ServiceResult<WriteBackState<HddState>> hit =
                BUFFERED.serve(IoRequest.read(50 * GIB + OBJECT, 2 * OBJECT), state, nowNanos);
        assertThat(hit.completionNanos() - nowNanos).isEqualTo(Math.round(2 * OBJECT * 1e9 / 2_000_000_000L));

        ServiceResult<WriteBackState<HddState>> flushed = BUFFERED.flush(50 * GIB, 51 * GIB, state, nowNanos);
        long mediaWriteNanos = DISK.transferNanos(50 * GIB, 4 * OBJECT);
        assertThat(flushed.completionNanos() - nowNanos).isGreaterThan(mediaWriteNanos);
        assertThat(flushed.nextState().dirty().isEmpty()).isTrue();
        ServiceResult<WriteBackState<HddState>> miss = BUFFERED.serve(IoRequest.read(50 * GIB + OBJECT, 2 * OBJECT),
                flushed.nextState(), flushed.completionNanos());
        assertThat(miss.completionNanos() - flushed.completionNanos())
                .isGreaterThan(DISK.transferNanos(50 * GIB, 2 * OBJECT));
    }

    @Test
    void aWriteBeyondTheDirtyLimitWaitsForWriteBack() {
        // Proves the limit: 512 objects (64 MiB) go in at copy speed, the next waits for the media.
        WriteBackState<HddState> state = BUFFERED.initialState();
        long nowNanos = 0;
        long copyNanos = Math.round(OBJECT * 1e9 / 2_000_000_000L);
        for (int object = 0; object < 512; object++) {
            ServiceResult<WriteBackState<HddState>> written =
                    BUFFERED.serve(IoRequest.write(object * OBJECT, OBJECT), state, nowNanos);
            assertThat(written.completionNanos() - nowNanos).isEqualTo(copyNanos);
            state = written.nextState();
            nowNanos = written.completionNanos();
        }
        ServiceResult<WriteBackState<HddState>> blocked =
                BUFFERED.serve(IoRequest.write(512 * OBJECT, OBJECT), state, nowNanos);
        assertThat(blocked.completionNanos() - nowNanos).isGreaterThan(DISK.transferNanos(0, OBJECT));
    }

    @Test
    void dirtyDataBelowTheBackgroundThresholdIsWrittenBackWhenItExpires() {
        // Proves expiry: one write stays dirty (a read hits memory) until 30 s later the flusher takes it.
        ServiceResult<WriteBackState<HddState>> written =
                BUFFERED.serve(IoRequest.write(50 * GIB, OBJECT), BUFFERED.initialState(), 0);
        long copyNanos = Math.round(OBJECT * 1e9 / 2_000_000_000L);
        ServiceResult<WriteBackState<HddState>> early =
                BUFFERED.serve(IoRequest.read(50 * GIB, OBJECT), written.nextState(), 29 * SECOND);
        assertThat(early.completionNanos() - 29 * SECOND).isEqualTo(copyNanos);
        ServiceResult<WriteBackState<HddState>> late =
                BUFFERED.serve(IoRequest.read(50 * GIB, OBJECT), written.nextState(), 31 * SECOND);
        assertThat(late.nextState().dirty().isEmpty()).isTrue();
        assertThat(late.completionNanos() - 31 * SECOND).isGreaterThan(copyNanos);
    }

    @Test
    void theElevatorSortsMergesAndSweepsOnFromWhereItWas() {
        // Proves one ascending sweep from the position, wrapping around, with adjacent writes merged.
        List<DirtyWrite> writes = List.of(new DirtyWrite(300, 100, 0), new DirtyWrite(0, 100, 1),
                new DirtyWrite(200, 100, 2), new DirtyWrite(100, 50, 3), new DirtyWrite(600, 10, 4));
        assertThat(WriteBackCache.elevatorOrder(writes, 250)).containsExactly(IoRequest.write(600, 10),
                IoRequest.write(0, 150), IoRequest.write(200, 200));
    }

    @Test
    void aWrappedSsdFlushesOnItsChannelsInParallel() {
        // Proves the wrapper suits any model: buffered 4 KiB random writes on the SSD sustain at least half of
        // what the SSD takes write-through at one outstanding request per writer (8 writers).
        SsdModel ssd = SsdModel.sata();
        WriteBackCache<SsdState> buffered = WriteBackCache.linuxHost(ssd);
        List<RoundRobinStreams.Stream> writers = new ArrayList<>();
        for (int writer = 0; writer < 8; writer++) {
            writers.add(RoundRobinStreams.random(IoKind.WRITE, writer * 10 * GIB, 10 * GIB, 4096, writer));
        }
        RoundRobinStreams.Outcome throughBuffer = RoundRobinStreams.run(buffered, writers, 2 * SECOND);
        RoundRobinStreams.Outcome direct = RoundRobinStreams.run(ssd, writers, 2 * SECOND);
        assertThat(totalBytesPerSecond(throughBuffer)).isGreaterThan(0.5 * totalBytesPerSecond(direct));
    }

    @Test
    void slowingTheCacheSlowsItsMediaAndItsCopies() {
        // Proves slowedBy scales every duration, the host's copy included.
        WriteBackCache<HddState> slow = BUFFERED.slowedBy(2);
        ServiceResult<WriteBackState<HddState>> written =
                slow.serve(IoRequest.write(50 * GIB, OBJECT), slow.initialState(), 0);
        assertThat(written.completionNanos()).isEqualTo(Math.round(2 * OBJECT * 1e9 / 2_000_000_000L));
        assertThat(slow.media()).isEqualTo(DISK.slowedBy(2));
    }

    @Test
    void badFiguresAreRefusedWithTheirValues() {
        assertThatThrownBy(() -> new WriteBackCache<>(DISK, 1024, 2048, 64, SECOND, 1, 1.0))
                .hasMessageContaining("2048").hasMessageContaining("1024");
        assertThatThrownBy(() -> new WriteBackCache<>(DISK, 2048, 1024, 0, SECOND, 1, 1.0))
                .hasMessageContaining("flushBatchWrites must be > 0, was 0");
        assertThatThrownBy(() -> IoRequest.read(0, 1).withSynced(true)).hasMessageContaining("READ");
    }
}
