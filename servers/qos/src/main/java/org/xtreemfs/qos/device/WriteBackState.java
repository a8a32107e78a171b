package org.xtreemfs.qos.device;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * State of a {@link WriteBackCache}: the media's state and the host's dirty data between requests.
 *
 * @param media the media model's state
 * @param nextStartNanos earliest start of the next request at the host: the last acknowledgement, or for a request
 *     the media served, the earlier of its completion and the media's next start (an SSD takes the next request
 *     while channels are free)
 * @param dirty writes acknowledged but not yet handed to the media, oldest first
 * @param batch the flusher's current batch: dirty writes handed to the elevator, sorted and merged, in the order
 *     the media gets them; at most the cache's batch size
 * @param batchStartNanos when the current batch was handed over: none of its requests starts earlier
 * @param writeback flushes issued to the media; their bytes count as dirty (and are still cached) until their
 *     completion; entries completed by the time of the last request are dropped, so the list stays short
 * @param backgroundSinceNanos when the dirty bytes last reached the background threshold, or
 *     {@link Long#MAX_VALUE} while below it
 */
public record WriteBackState<S extends DeviceState>(
        S media,
        long nextStartNanos,
        DirtyQueue dirty,
        List<IoRequest> batch,
        long batchStartNanos,
        List<Writeback> writeback,
        long backgroundSinceNanos)
        implements DeviceState {

    public WriteBackState {
        batch = List.copyOf(batch);
        writeback = List.copyOf(writeback);
    }

    /** A write acknowledged from memory at {@code dirtiedNanos} and not yet on the media. */
    public record DirtyWrite(long offsetBytes, long lengthBytes, long dirtiedNanos) {
        long endBytes() {
            return offsetBytes + lengthBytes;
        }

        boolean overlaps(long fromBytes, long toBytes) {
            return offsetBytes < toBytes && fromBytes < endBytes();
        }
    }

    /** A flush issued to the media: {@code request} completes at {@code completionNanos}. */
    public record Writeback(IoRequest request, long completionNanos) {}

    /**
     * The dirty writes in the order they were acknowledged: an immutable first-in first-out queue (a front list,
     * oldest first, and a back list, newest first, turned around when the front runs out), so that a state
     * transition appends or removes one write without copying thousands of dirty 4 KiB writes. Used by one state
     * after another, every operation costs O(1) amortised.
     */
    public static final class DirtyQueue {
        static final DirtyQueue EMPTY = new DirtyQueue(null, null, 0, 0);

        private record Link(DirtyWrite write, Link next) {}

        private final Link front;
        private final Link back;
        private final int size;
        private final long bytes;

        private DirtyQueue(Link front, Link back, int size, long bytes) {
            if (front == null && back != null) {
                Link reversed = null;
                for (Link link = back; link != null; link = link.next()) {
                    reversed = new Link(link.write(), reversed);
                }
                front = reversed;
                back = null;
            }
            this.front = front;
            this.back = back;
            this.size = size;
            this.bytes = bytes;
        }

        DirtyQueue append(DirtyWrite write) {
            return new DirtyQueue(front, new Link(write, back), size + 1, bytes + write.lengthBytes());
        }

        /** The oldest write; the queue must not be empty. */
        DirtyWrite oldest() {
            return front.write();
        }

        DirtyQueue withoutOldest() {
            return new DirtyQueue(front.next(), back, size - 1, bytes - front.write().lengthBytes());
        }

        /** The queue without the writes that match, which are added to {@code removed} oldest first. */
        DirtyQueue without(Predicate<DirtyWrite> match, List<DirtyWrite> removed) {
            List<DirtyWrite> kept = new ArrayList<>();
            forEach(write -> (match.test(write) ? removed : kept).add(write));
            if (kept.size() == size) {
                return this;
            }
            DirtyQueue result = EMPTY;
            for (DirtyWrite write : kept) {
                result = result.append(write);
            }
            return result;
        }

        /** Visits every write, oldest first. */
        void forEach(Consumer<DirtyWrite> visitor) {
            for (Link link = front; link != null; link = link.next()) {
                visitor.accept(link.write());
            }
            List<DirtyWrite> newestFirst = new ArrayList<>();
            for (Link link = back; link != null; link = link.next()) {
                newestFirst.add(link.write());
            }
            for (int index = newestFirst.size() - 1; index >= 0; index--) {
                visitor.accept(newestFirst.get(index));
            }
        }

        public boolean isEmpty() {
            return size == 0;
        }

        public int size() {
            return size;
        }

        /** Dirty bytes in the queue (a rewrite of dirty data counts again; see {@link WriteBackCache}). */
        public long bytes() {
            return bytes;
        }
    }
}
