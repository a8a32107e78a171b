package org.xtreemfs.mrc.metadata;

import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * POSIX permission checks as Linux does them for a process with the caller's uid, gid and
 * supplementary gids: the owner class, else the group class, else others; root bypasses read and
 * write checks and may search any directory, but executes a file only if some x bit is set.
 */
public final class Permissions {
    public static final int READ = 4;
    public static final int WRITE = 2;
    public static final int EXECUTE = 1;

    private Permissions() {}

    /** Whether the caller may access the inode with every bit of {@code mask} (R=4, W=2, X=1). */
    public static boolean allows(Caller caller, Stat stat, int mask) {
        int mode = stat.getMode();
        if (caller.isRoot()) {
            return (mask & EXECUTE) == 0 || FileModes.isDirectory(mode) || (mode & 0111) != 0;
        }
        int granted;
        if (caller.uid() == stat.getUid()) {
            granted = (mode >> 6) & 7;
        } else if (caller.isInGroup(stat.getGid())) {
            granted = (mode >> 3) & 7;
        } else {
            granted = mode & 7;
        }
        return (granted & mask) == mask;
    }

    /** Throws EACCES naming the path and the missing access unless {@link #allows} holds. */
    public static void check(Caller caller, Stat stat, int mask, String path) throws RpcException {
        if (!allows(caller, stat, mask)) {
            throw RpcException.errno(Errno.EACCES, "permission denied: " + describe(mask) + " access to '"
                    + path + "' for uid " + caller.uid());
        }
    }

    /** The owner of the inode or root; required for chmod, explicit utimes and xattrs of others. */
    public static boolean isOwnerOrRoot(Caller caller, Stat stat) {
        return caller.isRoot() || caller.uid() == stat.getUid();
    }

    /**
     * Sticky directories: only the entry's owner, the directory's owner or root may remove or rename
     * an entry (EPERM otherwise, as Linux).
     */
    public static void checkSticky(Caller caller, Stat directory, Stat entry, String path) throws RpcException {
        if ((directory.getMode() & FileModes.S_ISVTX) == 0 || caller.isRoot()) {
            return;
        }
        if (caller.uid() != directory.getUid() && caller.uid() != entry.getUid()) {
            throw RpcException.errno(Errno.EPERM, "operation not permitted: '" + path
                    + "' is in a sticky directory and uid " + caller.uid() + " owns neither");
        }
    }

    /** Deleting a volume or changing its reservation: its owner or root only (EPERM naming both). */
    public static void checkVolumeOwnerOrRoot(Caller caller, Volume volume, String action) throws RpcException {
        if (!caller.isRoot() && caller.uid() != volume.getOwnerUid()) {
            throw RpcException.errno(Errno.EPERM, "only the owner (uid " + volume.getOwnerUid()
                    + ") or root may " + action + " volume '" + volume.getName() + "'");
        }
    }

    private static String describe(int mask) {
        StringBuilder text = new StringBuilder();
        if ((mask & READ) != 0) {
            text.append("read");
        }
        if ((mask & WRITE) != 0) {
            text.append(text.length() > 0 ? "+" : "").append("write");
        }
        if ((mask & EXECUTE) != 0) {
            text.append(text.length() > 0 ? "+" : "").append("search/execute");
        }
        return text.length() == 0 ? "existence" : text.toString();
    }
}
