package org.xtreemfs.qos.wfq;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The one rule for "is this access a sequential continuation of its stream" (a stream is a file on this OSD, its
 * offsets the file's local objects laid end to end, as the device stores them). The OSD's QoS stage charges a
 * positioning to a request that does not continue its stream ({@code CostRule.Bytes}); the OSD's emulated device
 * forgives the host's turnaround to one that does; the simulator charges as the QoS stage does. All three ask
 * {@link #arrive}, so what is charged is what the device treats as sequential.
 *
 * <p><b>The rule.</b> A request continues its stream when it starts where the stream's previous request ended
 * ({@link Continuation#IN_ORDER}), or when it starts within the stream's <em>reorder window</em>
 * ({@link Continuation#REORDERED}): inside the range the stream recently covered, or at most
 * {@code reorderWindowRequests} requests' lengths before or after it. Anything else, and a stream's first request,
 * is {@link Continuation#POSITIONED}: a jump that costs the disk a positioning, after which the stream's recent
 * range starts afresh at the new place. Why a window: a client with several requests in flight (fio's iodepth 4-16
 * through a FUSE mount) hands them to the OSD from several threads, so they arrive slightly permuted; the device
 * does not pay for that permutation (the host's write-back sorts a batch of 64 writes before writing it, the
 * drive's 512 KiB read-ahead into 2 MiB cache segments serves reads just behind or ahead of the head), while
 * charging a positioning to every request that did not start exactly at the previous end charged a sequential
 * volume about 2.45 times its bytes.
 *
 * <p><b>Invariants.</b> Per stream four numbers are kept (recent range, previous end, previous length) and a
 * caller's mark, so memory is O(streamsMax). The recent range spans at most the reorder window behind its highest
 * end: a long sequential stream does not make a later jump back to its start a continuation. A window is
 * {@code reorderWindowRequests} times the larger of the request's and the stream's previous request's length, so a
 * stream of small random requests has a small window: a request landing at random in a 1 GiB file is a
 * continuation with probability about (2 windows + its range) / 1 GiB (4 KiB requests: 0.01 %). Forgetting: at most
 * {@code streamsMax} streams are remembered, the least recently used forgotten first; a forgotten stream's next
 * request is POSITIONED, which overcharges it once. Pure and single-threaded: the caller serializes the calls.
 */
public final class StreamContinuity {
    /** How a request relates to its stream. */
    public enum Continuation {
        /** Starts exactly where the stream's previous request ended. */
        IN_ORDER,
        /** Starts inside or next to the range the stream recently covered, not at the previous end: permuted. */
        REORDERED,
        /** The stream's first request, or a jump beyond its reorder window: the disk positions for it. */
        POSITIONED;

        /** Whether the request continues its stream: the disk needs no positioning for it, nor is one charged. */
        public boolean continuesStream() {
            return this != POSITIONED;
        }
    }

    /** The default reorder window: fio's deepest queue in the QoS benchmark; 16 × 128 KiB is one 2 MiB cache segment. */
    public static final int REORDER_WINDOW_REQUESTS_DEFAULT = 16;

    private static final class Stream {
        long rangeStartBytes;
        long rangeEndBytes;
        long previousEndBytes;
        long previousLengthBytes;
        boolean marked;
        long mark;
    }

    private final int streamsMax;
    private final int reorderWindowRequests;
    private final LinkedHashMap<String, Stream> streams;

    /** Remembers up to {@code streamsMax} streams, with the default reorder window. */
    public StreamContinuity(int streamsMax) {
        this(streamsMax, REORDER_WINDOW_REQUESTS_DEFAULT);
    }

    /**
     * @param streamsMax streams remembered at most (least recently used forgotten first)
     * @param reorderWindowRequests how many requests' lengths around a stream's recent range still continue it
     *     (0: only a request at the previous end or inside the recent range does)
     */
    public StreamContinuity(int streamsMax, int reorderWindowRequests) {
        if (streamsMax < 1) {
            throw new IllegalArgumentException("streamsMax must be >= 1, was " + streamsMax);
        }
        if (reorderWindowRequests < 0) {
            throw new IllegalArgumentException("reorderWindowRequests must be >= 0, was " + reorderWindowRequests);
        }
        this.streamsMax = streamsMax;
        this.reorderWindowRequests = reorderWindowRequests;
        this.streams = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Stream> eldest) {
                return size() > StreamContinuity.this.streamsMax;
            }
        };
    }

    /**
     * Records a request of {@code lengthBytes} at {@code offsetBytes} of {@code stream} (offsets in the stream's own
     * address space) in arrival order, and answers how it relates to the stream's recent requests.
     */
    public Continuation arrive(String stream, long offsetBytes, long lengthBytes) {
        long length = Math.max(0, lengthBytes);
        long endBytes = offsetBytes + length;
        Stream known = streams.get(stream);
        if (known == null) {
            known = new Stream();
            streams.put(stream, known);
            restart(known, offsetBytes, endBytes);
            known.previousLengthBytes = length;
            return Continuation.POSITIONED;
        }
        long windowBytes = reorderWindowRequests * Math.max(length, known.previousLengthBytes);
        Continuation continuation;
        if (offsetBytes == known.previousEndBytes) {
            continuation = Continuation.IN_ORDER;
        } else if (offsetBytes >= known.rangeStartBytes - windowBytes
                && offsetBytes <= known.rangeEndBytes + windowBytes) {
            continuation = Continuation.REORDERED;
        } else {
            continuation = Continuation.POSITIONED;
        }
        if (continuation == Continuation.POSITIONED) {
            restart(known, offsetBytes, endBytes);
        } else {
            known.rangeEndBytes = Math.max(known.rangeEndBytes, endBytes);
            known.rangeStartBytes = Math.max(Math.min(known.rangeStartBytes, offsetBytes),
                    known.rangeEndBytes - windowBytes);
            known.previousEndBytes = endBytes;
        }
        known.previousLengthBytes = length;
        return continuation;
    }

    private static void restart(Stream stream, long offsetBytes, long endBytes) {
        stream.rangeStartBytes = offsetBytes;
        stream.rangeEndBytes = endBytes;
        stream.previousEndBytes = endBytes;
    }

    /** Whether the request continues its stream ({@link #arrive}, then {@link Continuation#continuesStream}). */
    public boolean continues(String stream, long offsetBytes, long lengthBytes) {
        return arrive(stream, offsetBytes, lengthBytes).continuesStream();
    }

    /**
     * The caller's mark on a remembered stream (the emulated device: the completion time of the stream's latest
     * access), or empty if the stream is not remembered or was never marked.
     */
    public OptionalLong markOf(String stream) {
        Stream known = streams.get(stream);
        return known == null || !known.marked ? OptionalLong.empty() : OptionalLong.of(known.mark);
    }

    /** Sets the caller's mark on a stream {@link #arrive} has just seen; nothing if it is not remembered. */
    public void mark(String stream, long mark) {
        Stream known = streams.get(stream);
        if (known != null) {
            known.marked = true;
            known.mark = mark;
        }
    }

    /** Streams remembered now (at most {@code streamsMax}). */
    public int size() {
        return streams.size();
    }
}
