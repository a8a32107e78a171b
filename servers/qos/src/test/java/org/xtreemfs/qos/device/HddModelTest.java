package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HddModelTest {
    private static final HddModel DISK = HddModel.desktop7200Rpm();
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final long GIB = 1L << 30;

    @Test
    void seekTimeGrowsWithDistanceAndJoinsSmoothlyAtTheKnee() {
        // Proves the seek curve is monotone, zero within a track, and continuous where sqrt turns linear.
        assertThat(DISK.seekNanos(1000, 0)).isZero();
        long previous = 0;
        for (int step = 1; step <= 100; step++) {
            long seek = DISK.seekNanos(DISK.capacityBytes() * step / 100, 0);
            assertThat(seek).isGreaterThanOrEqualTo(previous);
            previous = seek;
        }
        long knee = (long) (DISK.capacityBytes() * HddModel.SHORT_SEEK_KNEE_FRACTION);
        long gapNanos = Math.abs(DISK.seekNanos(knee + 1_000_000, 0) - DISK.seekNanos(knee - 1_000_000, 0));
        assertThat(gapNanos).isLessThan(1_000);
        assertThat(DISK.seekNanos(DISK.capacityBytes(), 0)).isEqualTo(DISK.fullStrokeSeekNanos());
    }

    @Test
    void aloneSequentialReaderStreamsAtTheMediaRate() {
        // Proves read-ahead makes a queue-depth-1 sequential reader run close to the outer-zone media rate.
        RoundRobinStreams.Outcome outcome = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024)), 2 * SECOND_NANOS);
        double mediaRate = DISK.transferBytesPerSecond(0);
        assertThat(outcome.bytesPerSecond(0)).isBetween(0.85 * mediaRate, 1.0 * mediaRate);
    }

    @Test
    void aloneSequentialWriterStreamsAtTheMediaRate() {
        // Proves back-to-back sequential writes need no positioning.
        RoundRobinStreams.Outcome outcome = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.sequential(IoKind.WRITE, 0, 128 * 1024)), 2 * SECOND_NANOS);
        assertThat(outcome.bytesPerSecond(0)).isGreaterThan(0.85 * DISK.transferBytesPerSecond(0));
    }

    @Test
    void randomReadsCostAverageSeekPlusHalfARotation() {
        // Proves random 4 KiB reads over the whole disk cost about overhead + seek(1/3 stroke) + rotation/2.
        RoundRobinStreams.Outcome outcome = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.random(IoKind.READ, 0, DISK.capacityBytes(), 4096, 7)), 20 * SECOND_NANOS);
        double expectedNanos = DISK.commandOverheadNanos() + DISK.seekNanos(DISK.capacityBytes() / 3, 0)
                + DISK.rotationNanos() / 2.0;
        double measuredNanos = 1e9 / outcome.requestsPerSecond(0);
        assertThat(measuredNanos).isBetween(0.85 * expectedNanos, 1.15 * expectedNanos);
    }

    @Test
    void sameTypeNeighboursShareFairly() {
        // Proves two sequential readers, and two random readers, each get about half of what the pair gets.
        RoundRobinStreams.Outcome sequential = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024),
                RoundRobinStreams.sequential(IoKind.READ, 100 * GIB, 128 * 1024)), 5 * SECOND_NANOS);
        assertThat(sequential.bytesPerSecond(0) / sequential.bytesPerSecond(1)).isBetween(0.9, 1.1);
        RoundRobinStreams.Outcome random = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.random(IoKind.READ, 0, 10 * GIB, 4096, 1),
                RoundRobinStreams.random(IoKind.READ, 100 * GIB, 10 * GIB, 4096, 2)), 10 * SECOND_NANOS);
        assertThat(random.requestsPerSecond(0) / random.requestsPerSecond(1)).isBetween(0.9, 1.1);
    }

    @Test
    void randomReaderCostsSequentialReaderFarMoreThanHalf() {
        // Proves the central interference fact: the sequential side loses far more than its half.
        RoundRobinStreams.Stream sequentialReader = RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024);
        RoundRobinStreams.Outcome aloneSequential = RoundRobinStreams.run(DISK, List.of(sequentialReader),
                5 * SECOND_NANOS);
        RoundRobinStreams.Outcome aloneRandom = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.random(IoKind.READ, 100 * GIB, 10 * GIB, 4096, 3)), 5 * SECOND_NANOS);
        RoundRobinStreams.Outcome mixed = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024),
                RoundRobinStreams.random(IoKind.READ, 100 * GIB, 10 * GIB, 4096, 3)), 5 * SECOND_NANOS);
        double sequentialKept = mixed.bytesPerSecond(0) / aloneSequential.bytesPerSecond(0);
        double randomKept = mixed.requestsPerSecond(1) / aloneRandom.requestsPerSecond(0);
        assertThat(sequentialKept).isLessThan(0.25);
        assertThat(randomKept).isGreaterThan(0.35);
    }

    @Test
    void randomWriterHurtsOtherRandomWritersAndReaders() {
        // Proves a random writer costs a random neighbour about half its IOPS, like any random neighbour does.
        RoundRobinStreams.Outcome alone = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.random(IoKind.WRITE, 0, 10 * GIB, 4096, 4)), 5 * SECOND_NANOS);
        RoundRobinStreams.Outcome shared = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.random(IoKind.WRITE, 0, 10 * GIB, 4096, 4),
                RoundRobinStreams.random(IoKind.WRITE, 300 * GIB, 10 * GIB, 4096, 5)), 5 * SECOND_NANOS);
        assertThat(shared.requestsPerSecond(0) / alone.requestsPerSecond(0)).isLessThan(0.5);
    }

    @Test
    void logStructuredLayoutTurnsRandomWritesIntoSequentialAppends() {
        // Proves appending random writes to a log is an order of magnitude faster than writing them in place.
        RoundRobinStreams.Stream inPlace = RoundRobinStreams.random(IoKind.WRITE, 0, 100 * GIB, 4096, 6);
        RoundRobinStreams.Outcome scattered = RoundRobinStreams.run(DISK, List.of(inPlace), 5 * SECOND_NANOS);
        LogStructuredLayout[] log = {LogStructuredLayout.empty(500 * GIB, 600 * GIB)};
        RoundRobinStreams.Stream appended = index -> {
            LogStructuredLayout.Append append = log[0].append(4096);
            log[0] = append.next();
            return append.deviceRequest();
        };
        RoundRobinStreams.Outcome logged = RoundRobinStreams.run(DISK, List.of(appended), 5 * SECOND_NANOS);
        assertThat(logged.requestsPerSecond(0)).isGreaterThan(10 * scattered.requestsPerSecond(0));
    }

    @Test
    void sameInputsGiveTheSameOutputs() {
        // Proves the model is deterministic: no hidden clock or randomness.
        RoundRobinStreams.Outcome first = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.sequential(IoKind.READ, 0, 65536),
                RoundRobinStreams.random(IoKind.WRITE, 50 * GIB, GIB, 4096, 9)), SECOND_NANOS);
        RoundRobinStreams.Outcome second = RoundRobinStreams.run(DISK, List.of(
                RoundRobinStreams.sequential(IoKind.READ, 0, 65536),
                RoundRobinStreams.random(IoKind.WRITE, 50 * GIB, GIB, 4096, 9)), SECOND_NANOS);
        assertThat(second.bytes()).isEqualTo(first.bytes());
        assertThat(second.elapsedNanos()).isEqualTo(first.elapsedNanos());
    }

    @Test
    void slowingTheDiskByHalfAgainCutsThroughputByAThird() {
        // Proves slowedBy scales every duration, which the capacity-drop scenario relies on.
        RoundRobinStreams.Outcome normal = RoundRobinStreams.run(DISK,
                List.of(RoundRobinStreams.random(IoKind.READ, 0, 10 * GIB, 4096, 8)), 10 * SECOND_NANOS);
        RoundRobinStreams.Outcome slow = RoundRobinStreams.run(DISK.slowedBy(1.5),
                List.of(RoundRobinStreams.random(IoKind.READ, 0, 10 * GIB, 4096, 8)), 10 * SECOND_NANOS);
        assertThat(slow.requestsPerSecond(0) / normal.requestsPerSecond(0)).isBetween(0.6, 0.73);
    }
}
