package org.xtreemfs.qos.device;

import java.util.Objects;

/**
 * A contiguous device request: the byte range {@code [offsetBytes, offsetBytes + lengthBytes)}, its direction and,
 * for a write, whether the caller asked for it to be durable before it is acknowledged ({@code synced}: the OSD's
 * sync flag, which forces the object file). An unsynced write may be acknowledged from the host's page cache
 * ({@link WriteBackCache}); a model without a host buffer treats both alike. Invariant: only writes are synced.
 */
public record IoRequest(long offsetBytes, long lengthBytes, IoKind kind, boolean synced) {
    /** An unsynced request. */
    public IoRequest(long offsetBytes, long lengthBytes, IoKind kind) {
        this(offsetBytes, lengthBytes, kind, false);
    }

    public IoRequest {
        if (offsetBytes < 0) {
            throw new IllegalArgumentException("offsetBytes must be >= 0, was " + offsetBytes);
        }
        if (lengthBytes <= 0) {
            throw new IllegalArgumentException("lengthBytes must be > 0, was " + lengthBytes);
        }
        Objects.requireNonNull(kind, "kind");
        if (synced && kind != IoKind.WRITE) {
            throw new IllegalArgumentException("only a write can be synced, was a " + kind);
        }
    }

    public static IoRequest read(long offsetBytes, long lengthBytes) {
        return new IoRequest(offsetBytes, lengthBytes, IoKind.READ);
    }

    public static IoRequest write(long offsetBytes, long lengthBytes) {
        return new IoRequest(offsetBytes, lengthBytes, IoKind.WRITE);
    }

    /** A write that must be durable before it is acknowledged. */
    public static IoRequest syncedWrite(long offsetBytes, long lengthBytes) {
        return new IoRequest(offsetBytes, lengthBytes, IoKind.WRITE, true);
    }

    /** The same range and direction, synced as given. */
    public IoRequest withSynced(boolean newSynced) {
        return new IoRequest(offsetBytes, lengthBytes, kind, newSynced);
    }

    public long endBytes() {
        return offsetBytes + lengthBytes;
    }
}
