package org.xtreemfs.osd.storage;

import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A read's bytes left in the object's file, for the transport to send from there (sendfile; see
 * {@link ObjectStorage#readRegion}): [position, position + count) of {@code channel}. Until {@link #release()} the
 * store keeps those bytes as the read saw them: writes to the object and truncates of the file wait (see
 * {@link ObjectStore}), and the channel stays open even if the open-file cache drops it.
 */
public final class ObjectRegion {
    private final FileChannel channel;
    private final long position;
    private final long count;
    private final Runnable onReleased;
    private final AtomicBoolean released = new AtomicBoolean();
    /** Whether the calling thread is the one that sends the region; see {@link #transferredBy}. */
    private volatile BooleanSupplier transferThread = () -> false;

    ObjectRegion(FileChannel channel, long position, long count, Runnable onReleased) {
        this.channel = channel;
        this.position = position;
        this.count = count;
        this.onReleased = onReleased;
    }

    public FileChannel channel() {
        return channel;
    }

    /** The first byte's offset in the object's file. */
    public long position() {
        return position;
    }

    /** The bytes the read found stored (fewer than asked at the object's end; never 0). */
    public long count() {
        return count;
    }

    /**
     * Tells the region which thread sends it: a writer on that thread cannot wait for the transfer's end (only that
     * thread can bring it about) and goes ahead; see {@link ObjectStore}.
     */
    public void transferredBy(BooleanSupplier isCurrentThread) {
        transferThread = isCurrentThread;
    }

    boolean transferredByCurrentThread() {
        return transferThread.getAsBoolean();
    }

    /** The transfer ended (or never began): the store may change these bytes again. Idempotent. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            onReleased.run();
        }
    }
}
