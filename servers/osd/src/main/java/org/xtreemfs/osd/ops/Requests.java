package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.Lock;
import org.xtreemfs.osd.locks.HeldLock;
import org.xtreemfs.osd.locks.LockKind;
import org.xtreemfs.osd.locks.LockOwner;
import org.xtreemfs.osd.storage.FileIds;

/** Checks shared by the operations, done on the network thread before anything is queued. */
final class Requests {
    private Requests() {}

    static String fileId(String fileId) throws RpcException {
        String problem = FileIds.problem(fileId);
        if (problem != null) {
            throw RpcException.invalidArguments(problem);
        }
        return fileId;
    }

    static int unsignedInt(int value, String field) throws RpcException {
        if (value < 0) {
            throw RpcException.invalidArguments(field + " " + Integer.toUnsignedString(value) + " is too large");
        }
        return value;
    }

    static long unsignedLong(long value, String field) throws RpcException {
        if (value < 0) {
            throw RpcException.invalidArguments(field + " " + Long.toUnsignedString(value) + " is too large");
        }
        return value;
    }

    /** The lock of a lock request: a client UUID, a known kind and a range inside the signed 64-bit offsets. */
    static HeldLock lock(Lock lock) throws RpcException {
        if (lock.getClientUuid().isEmpty()) {
            throw RpcException.invalidArguments("lock request without a client UUID");
        }
        LockKind kind = switch (lock.getKind()) {
            case LOCK_KIND_POSIX -> LockKind.POSIX;
            case LOCK_KIND_FLOCK -> LockKind.FLOCK;
            default -> throw RpcException.invalidArguments("lock kind " + lock.getKind() + " is not POSIX or FLOCK");
        };
        try {
            return HeldLock.ofRange(new LockOwner(lock.getClientUuid(), lock.getOwner()), lock.getPid(),
                    lock.getOffsetBytes(), lock.getLengthBytes(), lock.getExclusive(), kind);
        } catch (IllegalArgumentException e) {
            throw RpcException.invalidArguments(e.getMessage());
        }
    }
}
