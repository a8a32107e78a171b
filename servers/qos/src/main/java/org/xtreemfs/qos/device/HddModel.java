package org.xtreemfs.qos.device;

import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.qos.device.HddState.CacheSegment;

/**
 * Service-time model of a spinning disk whose own write cache is off (every write reaches the media before it
 * completes). The host's write-back in front of it, which an OSD's unsynced writes go through, is
 * {@link WriteBackCache}; the built-in HDD is the two together ({@link WriteBackCache#osdHdd7200()}).
 *
 * <p>Per request: command overhead, then positioning (seek by distance plus rotational wait computed from the
 * platter angle at the time the seek ends), then transfer at the zone's media rate. Seek time is
 * {@code trackToTrack + (fullStroke - trackToTrack) * g(d / capacity)} with {@code g} sqrt-shaped up to a knee
 * (acceleration-limited short seeks) and linear beyond it (coasting long seeks), joined with equal slope. A
 * request that starts exactly where and when the previous transfer ended needs no positioning.
 *
 * <p>Reads: a read that continues a cached range is sequential and triggers read-ahead of
 * {@code readAheadBytes} into a cache segment; while idle the drive keeps streaming into that segment up to
 * {@code segmentBytes}. Reads inside a segment are served at interface speed without moving the head. Any
 * other media access moves the head and ends streaming; this is what makes a random neighbour so costly for a
 * sequential reader. Writes invalidate overlapping cached ranges.
 */
public record HddModel(
        long capacityBytes,
        long rotationNanos,
        long trackToTrackSeekNanos,
        long fullStrokeSeekNanos,
        long outerTransferBytesPerSecond,
        long innerTransferBytesPerSecond,
        int zoneCount,
        long commandOverheadNanos,
        long interfaceBytesPerSecond,
        long readAheadBytes,
        long segmentBytes,
        int segmentCount,
        double timeScale)
        implements DeviceModel<HddState> {

    /** Seek-distance fraction where the sqrt-shaped short-seek curve turns into the linear long-seek line. */
    static final double SHORT_SEEK_KNEE_FRACTION = 0.25;

    private static final double NANOS_PER_SECOND = 1e9;

    public HddModel {
        requirePositive("capacityBytes", capacityBytes);
        requirePositive("rotationNanos", rotationNanos);
        requirePositive("trackToTrackSeekNanos", trackToTrackSeekNanos);
        if (fullStrokeSeekNanos < trackToTrackSeekNanos) {
            throw new IllegalArgumentException("fullStrokeSeekNanos must be >= trackToTrackSeekNanos");
        }
        requirePositive("innerTransferBytesPerSecond", innerTransferBytesPerSecond);
        if (outerTransferBytesPerSecond < innerTransferBytesPerSecond) {
            throw new IllegalArgumentException("outerTransferBytesPerSecond must be >= innerTransferBytesPerSecond");
        }
        requirePositive("zoneCount", zoneCount);
        if (commandOverheadNanos < 0) {
            throw new IllegalArgumentException("commandOverheadNanos must be >= 0");
        }
        requirePositive("interfaceBytesPerSecond", interfaceBytesPerSecond);
        if (readAheadBytes < 0 || segmentBytes < readAheadBytes) {
            throw new IllegalArgumentException("need 0 <= readAheadBytes <= segmentBytes");
        }
        requirePositive("segmentCount", segmentCount);
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("timeScale must be > 0, was " + timeScale);
        }
    }

    /**
     * A 1 TiB 7200 rpm desktop drive: 0.8 ms track-to-track, 17 ms full stroke (about 8.5 ms for a third of the
     * stroke), 210 MB/s outer to 100 MB/s inner in 16 zones, SATA 3 interface, 16 cache segments of 2 MiB and
     * 512 KiB read-ahead. Typical data-sheet figures for that class of drive.
     */
    public static HddModel desktop7200Rpm() {
        return new HddModel(
                1L << 40, 60_000_000_000L / 7200, 800_000, 17_000_000, 210_000_000, 100_000_000, 16,
                100_000, 550_000_000, 512 * 1024, 2 * 1024 * 1024, 16, 1.0);
    }

    @Override
    public HddModel slowedBy(double factor) {
        return new HddModel(
                capacityBytes, rotationNanos, trackToTrackSeekNanos, fullStrokeSeekNanos, outerTransferBytesPerSecond,
                innerTransferBytesPerSecond, zoneCount, commandOverheadNanos, interfaceBytesPerSecond, readAheadBytes,
                segmentBytes, segmentCount, timeScale * factor);
    }

    @Override
    public HddState initialState() {
        return new HddState(0, 0, 0, List.of(), -1, 0);
    }

    @Override
    public ServiceResult<HddState> serve(IoRequest request, HddState state, long startNanos) {
        DeviceModel.requireWithinCapacity(request, capacityBytes);
        long nowNanos = Math.max(startNanos, state.nextStartNanos());
        HddState current = advanceStreaming(state, nowNanos);
        return request.kind() == IoKind.READ ? read(request, current, nowNanos) : write(request, current, nowNanos);
    }

    private ServiceResult<HddState> read(IoRequest request, HddState state, long nowNanos) {
        List<CacheSegment> segments = new ArrayList<>(state.segments());
        for (int index = 0; index < segments.size(); index++) {
            CacheSegment segment = segments.get(index);
            if (segment.contains(request.offsetBytes(), request.endBytes())) {
                long completionNanos = nowNanos + scaled(commandOverheadNanos)
                        + scaled(durationNanos(request.lengthBytes(), interfaceBytesPerSecond));
                segments.set(index, new CacheSegment(segment.startBytes(), segment.endBytes(), completionNanos));
                // The head is not needed for a hit, so an active read-ahead keeps streaming meanwhile.
                HddState next = new HddState(state.headOffsetBytes(), state.headAlignedNanos(), completionNanos,
                        segments, state.streamingSegmentIndex(), state.streamingSinceNanos());
                return new ServiceResult<>(completionNanos, next);
            }
        }
        int continuedIndex = -1;
        for (int index = 0; index < segments.size() && continuedIndex < 0; index++) {
            if (segments.get(index).continuedBy(request.offsetBytes())) {
                continuedIndex = index;
            }
        }
        long mediaStartBytes =
                continuedIndex >= 0 ? segments.get(continuedIndex).endBytes() : request.offsetBytes();
        long transferEndNanos = mediaAccessEndNanos(state, mediaStartBytes, request.endBytes(), nowNanos);
        if (continuedIndex < 0) {
            insertLeastRecentlyUsed(segments, new CacheSegment(request.offsetBytes(), request.endBytes(),
                    transferEndNanos));
            HddState next = new HddState(request.endBytes(), transferEndNanos, transferEndNanos, segments, -1, 0);
            return new ServiceResult<>(transferEndNanos, next);
        }
        long readAheadEndBytes = Math.min(capacityBytes, request.endBytes() + readAheadBytes);
        long busyUntilNanos = transferEndNanos
                + transferNanos(request.endBytes(), readAheadEndBytes - request.endBytes());
        segments.set(continuedIndex, new CacheSegment(request.endBytes(), readAheadEndBytes, transferEndNanos));
        HddState next = new HddState(readAheadEndBytes, busyUntilNanos, busyUntilNanos, segments, continuedIndex,
                busyUntilNanos);
        return new ServiceResult<>(transferEndNanos, next);
    }

    private ServiceResult<HddState> write(IoRequest request, HddState state, long nowNanos) {
        List<CacheSegment> segments = new ArrayList<>(state.segments().size());
        for (CacheSegment segment : state.segments()) {
            boolean overlaps = segment.startBytes() < request.endBytes() && request.offsetBytes() < segment.endBytes();
            if (!overlaps) {
                segments.add(segment);
            }
        }
        long transferEndNanos = mediaAccessEndNanos(state, request.offsetBytes(), request.endBytes(), nowNanos);
        HddState next = new HddState(request.endBytes(), transferEndNanos, transferEndNanos, segments, -1, 0);
        return new ServiceResult<>(transferEndNanos, next);
    }

    /** Command overhead, positioning and media transfer of {@code [fromBytes, toBytes)} starting at nowNanos. */
    private long mediaAccessEndNanos(HddState state, long fromBytes, long toBytes, long nowNanos) {
        long timeNanos = nowNanos + scaled(commandOverheadNanos);
        boolean aligned = fromBytes == state.headOffsetBytes() && nowNanos == state.headAlignedNanos();
        if (!aligned) {
            timeNanos += seekNanos(Math.abs(fromBytes - state.headOffsetBytes()), fromBytes);
            timeNanos += rotationalWaitNanos(fromBytes, timeNanos);
        }
        return timeNanos + transferNanos(fromBytes, toBytes - fromBytes);
    }

    /** Extends the streaming segment by what the idle drive read ahead up to nowNanos. */
    private HddState advanceStreaming(HddState state, long nowNanos) {
        if (!state.streaming() || nowNanos <= state.streamingSinceNanos()) {
            return state;
        }
        CacheSegment segment = state.segments().get(state.streamingSegmentIndex());
        long roomBytes = Math.min(segment.startBytes() + segmentBytes, capacityBytes) - segment.endBytes();
        long elapsedNanos = nowNanos - state.streamingSinceNanos();
        long streamedBytes = (long) (elapsedNanos * transferBytesPerSecond(segment.endBytes())
                / (NANOS_PER_SECOND * timeScale));
        List<CacheSegment> segments = new ArrayList<>(state.segments());
        if (streamedBytes >= roomBytes) {
            long endBytes = segment.endBytes() + Math.max(0, roomBytes);
            long fullNanos = state.streamingSinceNanos() + transferNanos(segment.endBytes(), Math.max(0, roomBytes));
            segments.set(state.streamingSegmentIndex(),
                    new CacheSegment(segment.startBytes(), endBytes, segment.lastUseNanos()));
            return new HddState(endBytes, fullNanos, state.nextStartNanos(), segments, -1, 0);
        }
        long endBytes = segment.endBytes() + streamedBytes;
        segments.set(state.streamingSegmentIndex(),
                new CacheSegment(segment.startBytes(), endBytes, segment.lastUseNanos()));
        return new HddState(endBytes, nowNanos, state.nextStartNanos(), segments, state.streamingSegmentIndex(),
                nowNanos);
    }

    private void insertLeastRecentlyUsed(List<CacheSegment> segments, CacheSegment segment) {
        if (segments.size() < segmentCount) {
            segments.add(segment);
            return;
        }
        int victim = 0;
        for (int index = 1; index < segments.size(); index++) {
            if (segments.get(index).lastUseNanos() < segments.get(victim).lastUseNanos()) {
                victim = index;
            }
        }
        segments.set(victim, segment);
    }

    /** Seek time for moving the head by distanceBytes; zero within one track of the target. */
    long seekNanos(long distanceBytes, long targetBytes) {
        if (distanceBytes < trackBytes(targetBytes)) {
            return 0;
        }
        double fraction = Math.min(1.0, (double) distanceBytes / capacityBytes);
        double knee = SHORT_SEEK_KNEE_FRACTION;
        double sqrtCoefficient = 2 * Math.sqrt(knee) / (1 + knee);
        double shape = fraction <= knee
                ? sqrtCoefficient * Math.sqrt(fraction)
                : sqrtCoefficient * Math.sqrt(knee) + sqrtCoefficient / (2 * Math.sqrt(knee)) * (fraction - knee);
        return scaled(trackToTrackSeekNanos + Math.round((fullStrokeSeekNanos - trackToTrackSeekNanos) * shape));
    }

    /** Wait until the sector at offsetBytes rotates under the head, for a head that is on track at timeNanos. */
    long rotationalWaitNanos(long offsetBytes, long timeNanos) {
        long trackBytes = trackBytes(offsetBytes);
        long zoneStartBytes = zoneIndex(offsetBytes) * zoneBytes();
        double sectorAngle = (double) ((offsetBytes - zoneStartBytes) % trackBytes) / trackBytes;
        double rotationScaledNanos = rotationNanos * timeScale;
        double platterAngle = (timeNanos % (long) rotationScaledNanos) / rotationScaledNanos;
        double turns = sectorAngle - platterAngle;
        turns -= Math.floor(turns);
        return Math.round(turns * rotationScaledNanos);
    }

    long transferNanos(long offsetBytes, long lengthBytes) {
        return scaled(durationNanos(lengthBytes, transferBytesPerSecond(offsetBytes)));
    }

    /** Media rate of the zone holding offsetBytes: zones step linearly from the outer to the inner rate. */
    long transferBytesPerSecond(long offsetBytes) {
        int zone = zoneIndex(offsetBytes);
        if (zoneCount == 1) {
            return outerTransferBytesPerSecond;
        }
        return outerTransferBytesPerSecond
                - (outerTransferBytesPerSecond - innerTransferBytesPerSecond) * zone / (zoneCount - 1);
    }

    /** Bytes per track in the zone holding offsetBytes: one rotation's worth at that zone's media rate. */
    long trackBytes(long offsetBytes) {
        return Math.max(1, Math.round(transferBytesPerSecond(offsetBytes) * (rotationNanos / NANOS_PER_SECOND)));
    }

    private int zoneIndex(long offsetBytes) {
        return (int) Math.min(zoneCount - 1, offsetBytes / zoneBytes());
    }

    private long zoneBytes() {
        return (capacityBytes + zoneCount - 1) / zoneCount;
    }

    private long scaled(long nanos) {
        return Math.round(nanos * timeScale);
    }

    private static long durationNanos(long bytes, long bytesPerSecond) {
        return Math.round(bytes * NANOS_PER_SECOND / bytesPerSecond);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
