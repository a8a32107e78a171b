package org.xtreemfs.foundation.rpc;

/** POSIX errno values as carried in {@code ErrorResponse.posix_errno} (Linux numbering, as FUSE expects). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int EROFS = 30;
    public static final int EMLINK = 31;
    public static final int ERANGE = 34;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOLCK = 37;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int ENODATA = 61;
    public static final int ETIMEDOUT = 110;
    /** A file's view is outdated: an OSD saw a newer XLoc version of the file (its chain changed); open it again. */
    public static final int ESTALE = 116;
    public static final int ENOTSUP = 95;
    public static final int EDQUOT = 122;

    private Errno() {}

    /** The symbolic name of an errno value, for messages; "errno N" for values not listed here. */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EIO -> "EIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case EACCES -> "EACCES";
            case EEXIST -> "EEXIST";
            case EXDEV -> "EXDEV";
            case ENOTDIR -> "ENOTDIR";
            case EISDIR -> "EISDIR";
            case EBUSY -> "EBUSY";
            case EINVAL -> "EINVAL";
            case EFBIG -> "EFBIG";
            case ENOSPC -> "ENOSPC";
            case EROFS -> "EROFS";
            case EMLINK -> "EMLINK";
            case ERANGE -> "ERANGE";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case ENOLCK -> "ENOLCK";
            case ENOSYS -> "ENOSYS";
            case ENOTEMPTY -> "ENOTEMPTY";
            case ELOOP -> "ELOOP";
            case ENODATA -> "ENODATA";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ESTALE -> "ESTALE";
            case ENOTSUP -> "ENOTSUP";
            case EDQUOT -> "EDQUOT";
            default -> "errno " + errno;
        };
    }
}
