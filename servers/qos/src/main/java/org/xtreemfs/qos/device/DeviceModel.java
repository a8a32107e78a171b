package org.xtreemfs.qos.device;

/**
 * A pure service-time model. Callers start a request only at or after {@link DeviceState#nextStartNanos()};
 * an earlier start time is treated as that time, so a caller cannot make the device faster than it is.
 */
public sealed interface DeviceModel<S extends DeviceState> permits HddModel, SsdModel {
    S initialState();

    ServiceResult<S> serve(IoRequest request, S state, long startNanos);

    long capacityBytes();

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
