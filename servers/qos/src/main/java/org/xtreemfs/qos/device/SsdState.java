package org.xtreemfs.qos.device;

import java.util.Arrays;

/** Per-channel time at which each of an SSD's internal channels becomes free. Immutable. */
public final class SsdState implements DeviceState {
    private final long[] channelFreeNanos;

    public SsdState(long[] channelFreeNanos) {
        if (channelFreeNanos.length == 0) {
            throw new IllegalArgumentException("an SSD needs at least one channel");
        }
        this.channelFreeNanos = channelFreeNanos.clone();
    }

    public int channelCount() {
        return channelFreeNanos.length;
    }

    public long channelFreeNanos(int channel) {
        return channelFreeNanos[channel];
    }

    long[] channelFreeNanosCopy() {
        return channelFreeNanos.clone();
    }

    /** A new request can start as soon as any channel is free. */
    @Override
    public long nextStartNanos() {
        return Arrays.stream(channelFreeNanos).min().orElseThrow();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SsdState state && Arrays.equals(channelFreeNanos, state.channelFreeNanos);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(channelFreeNanos);
    }

    @Override
    public String toString() {
        return "SsdState" + Arrays.toString(channelFreeNanos);
    }
}
