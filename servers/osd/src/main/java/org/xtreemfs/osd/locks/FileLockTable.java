package org.xtreemfs.osd.locks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The locks of one file and the POSIX/flock rules, as pure functions from a list of locks to the next list.
 * Invariant (kept by {@link #afterAcquire} and {@link #afterRelease}): the POSIX locks of one owner never overlap,
 * and those of one owner and one mode never touch (they are merged); an owner has at most one flock lock.
 */
final class FileLockTable {
    private static final Comparator<HeldLock> ORDER = Comparator.comparing((HeldLock lock) -> lock.kind())
            .thenComparingLong(HeldLock::startBytes)
            .thenComparing(lock -> lock.owner().clientUuid())
            .thenComparingLong(lock -> lock.owner().owner());

    private List<HeldLock> locks = List.of();

    List<HeldLock> locks() {
        return locks;
    }

    int size() {
        return locks.size();
    }

    void replace(List<HeldLock> next) {
        locks = List.copyOf(next);
    }

    /** The first lock of another owner (in file order) that keeps {@code wanted} from being granted. */
    Optional<HeldLock> conflict(HeldLock wanted) {
        return locks.stream().filter(lock -> lock.conflictsWith(wanted)).findFirst();
    }

    /**
     * The table after granting {@code wanted}; the caller checked {@link #conflict} first. POSIX: the owner's locks
     * of the same mode that overlap or touch the range merge into one; its locks of the other mode lose the covered
     * part (a lock spanning the range splits in two). flock: the owner's flock lock is replaced (conversion).
     */
    List<HeldLock> afterAcquire(HeldLock wanted) {
        List<HeldLock> next = new ArrayList<>(locks.size() + 2);
        if (wanted.kind() == LockKind.FLOCK) {
            for (HeldLock lock : locks) {
                if (!(lock.kind() == LockKind.FLOCK && lock.owner().equals(wanted.owner()))) {
                    next.add(lock);
                }
            }
            next.add(wanted);
            next.sort(ORDER);
            return next;
        }
        // By the invariant, a lock merged here cannot touch another lock of the same owner and mode, so one pass
        // finds the whole merged range.
        long startBytes = wanted.startBytes();
        long endBytes = wanted.endBytes();
        for (HeldLock lock : locks) {
            if (ownPosix(lock, wanted.owner()) && lock.exclusive() == wanted.exclusive()
                    && lock.touches(wanted.startBytes(), wanted.endBytes())) {
                startBytes = Math.min(startBytes, lock.startBytes());
                endBytes = Math.max(endBytes, lock.endBytes());
            }
        }
        for (HeldLock lock : locks) {
            if (!ownPosix(lock, wanted.owner())) {
                next.add(lock);
            } else if (lock.exclusive() != wanted.exclusive()) {
                addOutside(next, lock, startBytes, endBytes);
            } else if (!lock.touches(wanted.startBytes(), wanted.endBytes())) {
                next.add(lock);
            }
        }
        next.add(wanted.withRange(startBytes, endBytes));
        next.sort(ORDER);
        return next;
    }

    /**
     * The table after the owner unlocks: POSIX locks lose [startBytes, endBytes) (a lock reaching beyond both ends
     * splits in two); {@code kind} FLOCK drops the owner's flock lock and ignores the range.
     */
    List<HeldLock> afterRelease(LockOwner owner, LockKind kind, long startBytes, long endBytes) {
        List<HeldLock> next = new ArrayList<>(locks.size() + 1);
        for (HeldLock lock : locks) {
            if (lock.kind() != kind || !lock.owner().equals(owner)) {
                next.add(lock);
            } else if (kind == LockKind.POSIX) {
                addOutside(next, lock, startBytes, endBytes);
            }
        }
        next.sort(ORDER);
        return next;
    }

    /** The table without any lock of the client (its lease expired). */
    List<HeldLock> withoutClient(String clientUuid) {
        return locks.stream().filter(lock -> !lock.owner().clientUuid().equals(clientUuid)).toList();
    }

    private static boolean ownPosix(HeldLock lock, LockOwner owner) {
        return lock.kind() == LockKind.POSIX && lock.owner().equals(owner);
    }

    /** Adds the parts of {@code lock} outside [startBytes, endBytes): zero, one or two locks. */
    private static void addOutside(List<HeldLock> next, HeldLock lock, long startBytes, long endBytes) {
        if (!lock.overlaps(startBytes, endBytes)) {
            next.add(lock);
            return;
        }
        if (lock.startBytes() < startBytes) {
            next.add(lock.withRange(lock.startBytes(), startBytes));
        }
        if (lock.endBytes() > endBytes) {
            next.add(lock.withRange(endBytes, lock.endBytes()));
        }
    }
}
