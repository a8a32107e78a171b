package org.xtreemfs.mrc.metadata;

/**
 * When the MRC updates a file's or directory's access time (setting {@code mrc.atime.policy}). The MRC
 * never sees reads (clients read from the OSDs), so "accessed" means: a regular file opened for reading
 * (MRC_OPEN with O_RDONLY or O_RDWR), or a directory listed (MRC_READDIR from offset 0). Updating atime
 * never changes ctime, as in Linux.
 */
public enum AtimePolicy {
    /**
     * Linux's default (relatime): set atime = now when it is not newer than mtime or ctime, or older than
     * 24 hours; otherwise write nothing. Tools that compare atime with mtime ("has it been read since it
     * was changed?") keep working, and repeated opens cost no writes.
     */
    RELATIME,
    /** Never update atime on access; only setattr (utimens, touch -a) sets it. */
    NOATIME,
    /** Every access sets atime = now (one metadata write per open for reading). */
    STRICTATIME;

    /** The age after which relatime updates atime even when it is newer than mtime and ctime. */
    public static final long RELATIME_MAX_AGE_NS = 24L * 3600 * 1_000_000_000L;

    /** Whether an access at {@code nowNs} sets the atime of an inode with those times. */
    public boolean updates(long atimeNs, long mtimeNs, long ctimeNs, long nowNs) {
        return switch (this) {
            case NOATIME -> false;
            case STRICTATIME -> atimeNs != nowNs;
            case RELATIME -> atimeNs <= mtimeNs || atimeNs <= ctimeNs || nowNs - atimeNs >= RELATIME_MAX_AGE_NS;
        };
    }
}
