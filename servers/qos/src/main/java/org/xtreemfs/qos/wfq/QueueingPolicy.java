package org.xtreemfs.qos.wfq;

import java.util.List;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The order in which an OSD's QoS stage releases waiting requests to the device; the OSD and the simulator run
 * the same implementations. Time-aware and pure: time is a parameter (monotonic nanoseconds, never
 * decreasing between calls), and {@link #next(long)} may answer "nothing now, ask again at t"
 * ({@link Decision.WaitUntil}) so the caller can schedule a wake-up instead of polling. Not thread-safe: one
 * owner (the QoS stage, under its lock) calls it.
 *
 * <p>Invariants: bounded (a request beyond the policy's bounds is refused, never stored); nothing is lost or
 * duplicated (every accepted request comes out of {@link #next} or {@link #removeAll} exactly once).
 *
 * @param <R> the queued request type
 */
public interface QueueingPolicy<R> {

    /**
     * Offers a request charged to {@code volumeId}, whose share of this OSD is {@code share} (use
     * {@link VolumeShare#BEST_EFFORT} when unknown: unknown volumes are served best-effort, never refused for
     * being unknown), carrying {@code payloadBytes} (a write's data, a read's requested range; 0 for
     * metadata-only work). A rejected request was not stored; the caller owns it.
     */
    EnqueueResult enqueue(R request, String volumeId, VolumeShare share, long payloadBytes, long nowNanos);

    /**
     * As above, saying whether the request is a buffered write (an unsynced write the host's write-back will
     * acknowledge from memory), which a policy may pace by its device time ({@link BufferedWritePacing}); a
     * policy that does not pace ignores it.
     */
    default EnqueueResult enqueue(R request, String volumeId, VolumeShare share, long payloadBytes, boolean buffered,
            long nowNanos) {
        return enqueue(request, volumeId, share, payloadBytes, nowNanos);
    }

    /**
     * How full the host's write-back in front of the device is (its dirty bytes and the level at which its
     * background flusher starts), measured by the caller just before {@link #next}; a policy that paces buffered
     * writes uses it ({@link BufferedWritePacing}), others ignore it. Callers that cannot see the write-back never
     * call it.
     */
    default void observeWriteBack(long dirtyBytes, long backgroundBytes) {}

    /** The request to release now, or when the next one becomes eligible, or that nothing waits. */
    Decision<R> next(long nowNanos);

    int size();

    /** Removes and returns every waiting request (shutdown), in no particular order. */
    List<R> removeAll();
}
