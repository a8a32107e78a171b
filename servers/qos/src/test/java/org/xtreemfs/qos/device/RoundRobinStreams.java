package org.xtreemfs.qos.device;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Test driver: several request streams, one outstanding request each, served back to back in turn (what a FIFO
 * device queue does with queue depth 1 per stream). Reports per-stream bytes and completions.
 */
final class RoundRobinStreams {
    /** Produces the i-th request of a stream. */
    interface Stream extends LongFunction<IoRequest> {}

    record Outcome(long[] bytes, long[] requests, long elapsedNanos) {
        double bytesPerSecond(int stream) {
            return bytes[stream] * 1e9 / elapsedNanos;
        }

        double requestsPerSecond(int stream) {
            return requests[stream] * 1e9 / elapsedNanos;
        }
    }

    static Stream sequential(IoKind kind, long startBytes, long lengthBytes) {
        return index -> new IoRequest(startBytes + index * lengthBytes, lengthBytes, kind);
    }

    static Stream random(IoKind kind, long regionStartBytes, long regionBytes, long lengthBytes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long slots = regionBytes / lengthBytes;
        return index -> new IoRequest(regionStartBytes + random.nextLong(slots) * lengthBytes, lengthBytes, kind);
    }

    static <S extends DeviceState> Outcome run(DeviceModel<S> model, List<Stream> streams, long durationNanos) {
        S state = model.initialState();
        long[] bytes = new long[streams.size()];
        long[] requests = new long[streams.size()];
        long nowNanos = 0;
        for (long turn = 0; nowNanos < durationNanos && turn < 10_000_000; turn++) {
            int stream = (int) (turn % streams.size());
            IoRequest request = streams.get(stream).apply(requests[stream]);
            ServiceResult<S> result = model.serve(request, state, nowNanos);
            state = result.nextState();
            nowNanos = Math.max(result.completionNanos(), state.nextStartNanos());
            bytes[stream] += request.lengthBytes();
            requests[stream]++;
        }
        return new Outcome(bytes, requests, nowNanos);
    }
}
