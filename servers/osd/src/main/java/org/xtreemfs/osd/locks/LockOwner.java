package org.xtreemfs.osd.locks;

/**
 * Who holds a lock: a client process (one per mount, identified by its UUID) and the owner id the kernel gave
 * it (POSIX locks: the locking process's file table; flock: the open file).
 */
public record LockOwner(String clientUuid, long owner) {
    public LockOwner {
        if (clientUuid == null || clientUuid.isEmpty()) {
            throw new IllegalArgumentException("lock owner needs a client UUID");
        }
    }
}
