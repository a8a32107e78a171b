package org.xtreemfs.qos.device;

import java.util.Arrays;

/**
 * Service-time model of a flash drive: a fixed access latency (reads faster than writes) plus transfer at the
 * per-channel share of the device bandwidth, on {@code channelCount} channels that work in parallel. A
 * request is split into stripes of {@code stripeBytes} over the earliest-free channels, so one large request
 * uses the whole device and small random requests need queue depth to reach full IOPS. No seek, no position:
 * random and sequential access cost the same, which is why SSD interference stays small.
 */
public record SsdModel(
        long capacityBytes,
        int channelCount,
        long readLatencyNanos,
        long writeLatencyNanos,
        long readBytesPerSecond,
        long writeBytesPerSecond,
        long stripeBytes,
        double timeScale)
        implements DeviceModel<SsdState> {

    public SsdModel {
        if (capacityBytes <= 0 || channelCount <= 0 || readLatencyNanos < 0 || writeLatencyNanos < 0
                || readBytesPerSecond <= 0 || writeBytesPerSecond <= 0 || stripeBytes <= 0 || !(timeScale > 0)) {
            throw new IllegalArgumentException("SsdModel needs positive capacity, channels, rates, stripe and "
                    + "timeScale and non-negative latencies");
        }
    }

    /**
     * A 1 TiB SATA SSD: 8 channels, 80 µs read and 30 µs (write-cache absorbed) write latency, 540 MB/s read and
     * 480 MB/s write, 64 KiB stripes: about 55k 4 KiB read IOPS at queue depth 8 and above.
     */
    public static SsdModel sata() {
        return new SsdModel(1L << 40, 8, 80_000, 30_000, 540_000_000, 480_000_000, 64 * 1024, 1.0);
    }

    @Override
    public SsdModel slowedBy(double factor) {
        return new SsdModel(capacityBytes, channelCount, readLatencyNanos, writeLatencyNanos, readBytesPerSecond,
                writeBytesPerSecond, stripeBytes, timeScale * factor);
    }

    @Override
    public SsdState initialState() {
        return new SsdState(new long[channelCount]);
    }

    @Override
    public ServiceResult<SsdState> serve(IoRequest request, SsdState state, long startNanos) {
        DeviceModel.requireWithinCapacity(request, capacityBytes);
        if (state.channelCount() != channelCount) {
            throw new IllegalArgumentException("state has " + state.channelCount() + " channels, model "
                    + channelCount);
        }
        boolean read = request.kind() == IoKind.READ;
        long latencyNanos = read ? readLatencyNanos : writeLatencyNanos;
        double channelBytesPerSecond = (double) (read ? readBytesPerSecond : writeBytesPerSecond) / channelCount;
        int stripeCount = (int) Math.min(channelCount, (request.lengthBytes() + stripeBytes - 1) / stripeBytes);
        long[] channelFreeNanos = state.channelFreeNanosCopy();
        Integer[] byFreeTime = new Integer[channelCount];
        for (int channel = 0; channel < channelCount; channel++) {
            byFreeTime[channel] = channel;
        }
        Arrays.sort(byFreeTime, (left, right) -> channelFreeNanos[left] != channelFreeNanos[right]
                ? Long.compare(channelFreeNanos[left], channelFreeNanos[right])
                : Integer.compare(left, right));
        long stripeLengthBytes = (request.lengthBytes() + stripeCount - 1) / stripeCount;
        long serviceNanos = Math.round((latencyNanos + stripeLengthBytes * 1e9 / channelBytesPerSecond) * timeScale);
        long completionNanos = startNanos;
        for (int stripe = 0; stripe < stripeCount; stripe++) {
            int channel = byFreeTime[stripe];
            long endNanos = Math.max(startNanos, channelFreeNanos[channel]) + serviceNanos;
            channelFreeNanos[channel] = endNanos;
            completionNanos = Math.max(completionNanos, endNanos);
        }
        return new ServiceResult<>(completionNanos, new SsdState(channelFreeNanos));
    }
}
