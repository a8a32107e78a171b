package org.xtreemfs.osd.storage;

import org.xtreemfs.qos.device.IoKind;

/**
 * The disk under the object store as the store's data accesses see it. {@link ObjectStore} calls
 * {@link #begin} before the real I/O of an object read or write and {@link #end} after it, so an emulated
 * device ({@code osd.device.emulation}) can hold each access for its model's service time while the real I/O
 * still happens. Truncate, unlink, fsync and metadata are not charged: they touch the file system's journal,
 * not object data, and the models have no cost for them (a write-through model already charged every write
 * as durable, so fsync adds nothing).
 */
public interface StorageDevice {
    /** The real disk: no extra time. */
    StorageDevice NONE = new StorageDevice() {
        @Override
        public long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
                long lengthBytes, IoKind kind) {
            return 0;
        }

        @Override
        public void end(long completionNanos) {}
    };

    /**
     * Announces one access of {@code lengthBytes} at {@code offsetInObjectBytes} of the object with local index
     * {@code localObjectIndex} (object number / stripe width) of {@code fileId}; returns the monotonic time at
     * which the device completes it (0 for the real disk).
     */
    long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
            long lengthBytes, IoKind kind);

    /** Returns once the device has completed the access that {@link #begin} answered with {@code completionNanos}. */
    void end(long completionNanos);
}
