package org.xtreemfs.qos.wfq;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether a request continues its stream: it starts where the previous request of the same stream (a file on
 * this OSD) ended, so the disk needs no positioning for it. Pure and single-threaded (the QoS stage calls it
 * under its lock). Invariant: at most {@code streamsMax} streams are remembered, the least recently used
 * forgotten first; a forgotten stream's next request counts as not continuing, which only overcharges it once.
 */
public final class StreamContinuity {
    private final int streamsMax;
    private final LinkedHashMap<String, Long> endOffsets;

    public StreamContinuity(int streamsMax) {
        if (streamsMax < 1) {
            throw new IllegalArgumentException("streamsMax must be >= 1, was " + streamsMax);
        }
        this.streamsMax = streamsMax;
        this.endOffsets = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > StreamContinuity.this.streamsMax;
            }
        };
    }

    /**
     * Records a request of {@code lengthBytes} at {@code offsetBytes} of {@code stream} (offsets in the stream's
     * own address space, e.g. a file's local objects on this OSD laid end to end) and answers whether it starts
     * exactly where the stream's previous request ended.
     */
    public boolean continues(String stream, long offsetBytes, long lengthBytes) {
        Long previousEnd = endOffsets.put(stream, offsetBytes + Math.max(0, lengthBytes));
        return previousEnd != null && previousEnd == offsetBytes;
    }

    /** Streams remembered now (at most {@code streamsMax}). */
    public int size() {
        return endOffsets.size();
    }
}
