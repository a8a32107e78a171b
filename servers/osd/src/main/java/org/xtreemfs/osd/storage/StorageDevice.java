package org.xtreemfs.osd.storage;

import java.util.Optional;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.WriteBackLevel;

/**
 * The disk under the object store as the store's data accesses see it. {@link ObjectStore} calls
 * {@link #begin} before the real I/O of an object read or write and {@link #end} after it, and {@link #flush} for an
 * fsync, so an emulated device ({@code osd.device.emulation}) can hold each access for its model's service time
 * while the real I/O still happens. A write says whether it is synced (the store forces the object file): a
 * model with the host's write-back acknowledges an unsynced write from memory and a synced one only once it is on
 * the media. Truncate, unlink and metadata are not charged: they touch the file system's journal, not object
 * data, and the models have no cost for them.
 */
public interface StorageDevice {
    /** The real disk: no extra time. */
    StorageDevice NONE = new StorageDevice() {
        @Override
        public long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
                long lengthBytes, IoKind kind, boolean synced) {
            return 0;
        }

        @Override
        public long flush(String fileId) {
            return 0;
        }

        @Override
        public void end(long completionNanos) {}
    };

    /**
     * Announces one access of {@code lengthBytes} at {@code offsetInObjectBytes} of the object with local index
     * {@code localObjectIndex} (object number / stripe width) of {@code fileId}, {@code synced} for a write that
     * must be durable when it returns; returns the monotonic time at which the device completes it (0 for the
     * real disk).
     */
    long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
            long lengthBytes, IoKind kind, boolean synced);

    /** An unsynced access; see {@link #begin(String, long, int, long, long, IoKind, boolean)}. */
    default long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
            long lengthBytes, IoKind kind) {
        return begin(fileId, localObjectIndex, objectSizeBytes, offsetInObjectBytes, lengthBytes, kind, false);
    }

    /**
     * Announces an fsync of {@code fileId}: returns the monotonic time at which every write of the file that the
     * device still buffers is on the media (0 for the real disk); wait for it with {@link #end}.
     */
    long flush(String fileId);

    /**
     * How full the host's write-back in front of this device is now, if the OSD can see it (an emulated model's);
     * empty for the real disk: the host's page cache is shared with every other process, so the OSD does not
     * read its level as its own. The QoS stage's pacing opens while the level is below the background threshold.
     */
    default Optional<WriteBackLevel> writeBackLevel() {
        return Optional.empty();
    }

    /** Returns once the device has completed the access that {@link #begin} answered with {@code completionNanos}. */
    void end(long completionNanos);
}
