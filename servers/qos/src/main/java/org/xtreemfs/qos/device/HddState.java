package org.xtreemfs.qos.device;

import java.util.List;

/**
 * Mechanical and cache state of a spinning disk between requests.
 *
 * @param headOffsetBytes byte offset under the head after the last media transfer or read-ahead
 * @param headAlignedNanos time at which the head finished transferring at {@code headOffsetBytes}; a request for
 *     exactly that offset starting exactly then needs no positioning
 * @param nextStartNanos earliest start of the next request (includes mandatory read-ahead)
 * @param segments read cache segments, at most the model's segment count, each a cached byte range
 * @param streamingSegmentIndex index of the segment the idle drive keeps filling by read-ahead, or -1
 * @param streamingSinceNanos time from which that segment keeps growing at the media rate
 */
public record HddState(
        long headOffsetBytes,
        long headAlignedNanos,
        long nextStartNanos,
        List<CacheSegment> segments,
        int streamingSegmentIndex,
        long streamingSinceNanos)
        implements DeviceState {

    /** A cached byte range {@code [startBytes, endBytes)}; {@code lastUseNanos} orders eviction (LRU). */
    public record CacheSegment(long startBytes, long endBytes, long lastUseNanos) {
        boolean contains(long offsetBytes, long endOffsetBytes) {
            return startBytes <= offsetBytes && endOffsetBytes <= endBytes;
        }

        /** True if a request starting at {@code offsetBytes} continues this range (sequential access). */
        boolean continuedBy(long offsetBytes) {
            return startBytes <= offsetBytes && offsetBytes <= endBytes;
        }
    }

    public HddState {
        segments = List.copyOf(segments);
        if (streamingSegmentIndex >= segments.size()) {
            throw new IllegalArgumentException("streamingSegmentIndex " + streamingSegmentIndex + " has no segment");
        }
    }

    public boolean streaming() {
        return streamingSegmentIndex >= 0;
    }
}
