package org.xtreemfs.qos.device;

/** Immutable state a device model carries from one request to the next. */
public sealed interface DeviceState permits HddState, SsdState, WriteBackState {
    /** Earliest time at which the device can start serving another request. */
    long nextStartNanos();
}
