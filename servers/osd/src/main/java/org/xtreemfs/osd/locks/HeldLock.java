package org.xtreemfs.osd.locks;

/**
 * A lock (granted, or wanted): bytes [startBytes, endBytes) of a file. {@link #TO_END} as end means "to the end of
 * the file, however far it grows"; flock locks always cover [0, TO_END).
 */
public record HeldLock(LockOwner owner, int pid, long startBytes, long endBytes, boolean exclusive, LockKind kind) {
    /** End of a lock that reaches to the end of the file (off_t is signed, so no offset reaches it). */
    public static final long TO_END = Long.MAX_VALUE;

    public HeldLock {
        if (startBytes < 0 || endBytes <= startBytes) {
            throw new IllegalArgumentException("lock range [" + startBytes + ", " + endBytes + ") is empty or negative");
        }
        if (kind == LockKind.FLOCK && (startBytes != 0 || endBytes != TO_END)) {
            throw new IllegalArgumentException("a flock lock covers the whole file, not [" + startBytes + ", "
                    + endBytes + ")");
        }
    }

    /**
     * A lock from the protocol's offset and length (length 0: to the end of the file); both are unsigned 64-bit on
     * the wire and arrive here as Java longs. IllegalArgumentException names the bad value.
     */
    public static HeldLock ofRange(LockOwner owner, int pid, long offsetBytes, long lengthBytes, boolean exclusive,
            LockKind kind) {
        if (kind == LockKind.FLOCK) {
            return new HeldLock(owner, pid, 0, TO_END, exclusive, kind);
        }
        if (offsetBytes < 0) {
            throw new IllegalArgumentException("lock offset " + Long.toUnsignedString(offsetBytes)
                    + " exceeds the largest file offset " + Long.MAX_VALUE);
        }
        if (lengthBytes == 0) {
            return new HeldLock(owner, pid, offsetBytes, TO_END, exclusive, kind);
        }
        if (lengthBytes < 0 || offsetBytes > TO_END - lengthBytes) {
            throw new IllegalArgumentException("lock range at offset " + offsetBytes + " with length "
                    + Long.toUnsignedString(lengthBytes) + " ends beyond the largest file offset " + Long.MAX_VALUE);
        }
        return new HeldLock(owner, pid, offsetBytes, offsetBytes + lengthBytes, exclusive, kind);
    }

    /** The protocol's length: 0 for a lock to the end of the file. */
    public long lengthBytes() {
        return endBytes == TO_END ? 0 : endBytes - startBytes;
    }

    boolean overlaps(long otherStartBytes, long otherEndBytes) {
        return startBytes < otherEndBytes && otherStartBytes < endBytes;
    }

    /** Overlapping or adjacent: two such locks of one owner and one mode form one range. */
    boolean touches(long otherStartBytes, long otherEndBytes) {
        return startBytes <= otherEndBytes && otherStartBytes <= endBytes;
    }

    /** Whether this lock keeps {@code wanted} (of another owner) from being granted. */
    boolean conflictsWith(HeldLock wanted) {
        return kind == wanted.kind && !owner.equals(wanted.owner) && (exclusive || wanted.exclusive)
                && overlaps(wanted.startBytes, wanted.endBytes);
    }

    HeldLock withRange(long newStartBytes, long newEndBytes) {
        return new HeldLock(owner, pid, newStartBytes, newEndBytes, exclusive, kind);
    }
}
