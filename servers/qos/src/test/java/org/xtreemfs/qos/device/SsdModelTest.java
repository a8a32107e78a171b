package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SsdModelTest {
    private static final SsdModel SSD = SsdModel.sata();

    @Test
    void smallRequestsRunInParallelUpToTheChannelCount() {
        // Proves internal parallelism: one request per channel finishes together, the next one waits.
        SsdState state = SSD.initialState();
        long firstCompletion = 0;
        for (int request = 0; request < SSD.channelCount(); request++) {
            ServiceResult<SsdState> result = SSD.serve(IoRequest.read(request * 4096L, 4096), state, 0);
            state = result.nextState();
            if (request == 0) {
                firstCompletion = result.completionNanos();
            }
            assertThat(result.completionNanos()).isEqualTo(firstCompletion);
        }
        ServiceResult<SsdState> queued = SSD.serve(IoRequest.read(0, 4096), state, 0);
        assertThat(queued.completionNanos()).isEqualTo(2 * firstCompletion);
        assertThat(firstCompletion).isGreaterThan(SSD.readLatencyNanos());
    }

    @Test
    void largeRequestUsesTheWholeBandwidth() {
        // Proves a large read is striped over all channels and takes about length / bandwidth.
        long lengthBytes = 8L << 20;
        ServiceResult<SsdState> result = SSD.serve(IoRequest.read(0, lengthBytes), SSD.initialState(), 0);
        double idealNanos = lengthBytes * 1e9 / SSD.readBytesPerSecond();
        assertThat((double) result.completionNanos()).isBetween(idealNanos, idealNanos * 1.05
                + SSD.readLatencyNanos());
    }

    @Test
    void writesAndReadsHaveTheirOwnCosts() {
        // Proves direction matters: small writes finish sooner (write cache), large writes later (bandwidth).
        long smallRead = SSD.serve(IoRequest.read(0, 4096), SSD.initialState(), 0).completionNanos();
        long smallWrite = SSD.serve(IoRequest.write(0, 4096), SSD.initialState(), 0).completionNanos();
        long largeRead = SSD.serve(IoRequest.read(0, 64L << 20), SSD.initialState(), 0).completionNanos();
        long largeWrite = SSD.serve(IoRequest.write(0, 64L << 20), SSD.initialState(), 0).completionNanos();
        assertThat(smallWrite).isLessThan(smallRead);
        assertThat(largeWrite).isGreaterThan(largeRead);
    }

    @Test
    void randomNeighbourCostsASequentialReaderLittleOnFlash() {
        // Proves the SSD side of mission.md §1: without seeks, a random neighbour takes little from a stream.
        long gib = 1L << 30;
        RoundRobinStreams.Outcome alone = RoundRobinStreams.run(SSD,
                List.of(RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024)), 1_000_000_000L);
        RoundRobinStreams.Outcome mixed = RoundRobinStreams.run(SSD, List.of(
                RoundRobinStreams.sequential(IoKind.READ, 0, 128 * 1024),
                RoundRobinStreams.random(IoKind.READ, 100 * gib, 10 * gib, 4096, 1)), 1_000_000_000L);
        assertThat(mixed.bytesPerSecond(0) / alone.bytesPerSecond(0)).isGreaterThan(0.8);
    }
}
