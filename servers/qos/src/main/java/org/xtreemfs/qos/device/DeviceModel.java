package org.xtreemfs.qos.device;

import java.util.Optional;

/**
 * A pure service-time model. Callers start a request only at or after {@link DeviceState#nextStartNanos()};
 * an earlier start time is treated as that time, so a caller cannot make the device faster than it is.
 */
public sealed interface DeviceModel<S extends DeviceState> permits HddModel, SsdModel, WriteBackCache {
    S initialState();

    ServiceResult<S> serve(IoRequest request, S state, long startNanos);

    long capacityBytes();

    /**
     * Makes every buffered write within {@code [fromBytes, toBytes)} durable (an fsync of the file that owns the
     * range); the completion is when the last of them is on the media. A model without a host buffer writes
     * through, so it has nothing to flush: the flush completes at the start time and the state is unchanged.
     */
    default ServiceResult<S> flush(long fromBytes, long toBytes, S state, long startNanos) {
        return new ServiceResult<>(startNanos, state);
    }

    /**
     * How full the host's write-back in front of the media is at {@code nowNanos} (at or after the state's last
     * request), for a model that has one ({@link WriteBackCache}); empty for a device without one. A query: the
     * state is not changed.
     */
    default Optional<WriteBackLevel> writeBackLevel(S state, long nowNanos) {
        return Optional.empty();
    }

    /** The same device with every duration multiplied by {@code factor} (> 1 is slower); state stays valid. */
    DeviceModel<S> slowedBy(double factor);

    /** Precondition of {@link #serve}: the request lies on the device. */
    static void requireWithinCapacity(IoRequest request, long capacityBytes) {
        if (request.endBytes() > capacityBytes) {
            throw new IllegalArgumentException("request ends at " + request.endBytes() + " beyond capacityBytes "
                    + capacityBytes);
        }
    }
}
