package org.xtreemfs.client;

/** Linux open(2) flag bits as the MRC expects them (mrc.proto OpenFlag), plus helpers. */
public final class OpenFlags {
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 64;
    public static final int O_EXCL = 128;
    public static final int O_TRUNC = 512;
    public static final int O_APPEND = 1024;
    private static final int ACCESS_MODE_MASK = 3;

    private OpenFlags() {}

    public static boolean canWrite(int flags) {
        int accessMode = flags & ACCESS_MODE_MASK;
        return accessMode == O_WRONLY || accessMode == O_RDWR;
    }

    public static boolean canRead(int flags) {
        int accessMode = flags & ACCESS_MODE_MASK;
        return accessMode == O_RDONLY || accessMode == O_RDWR;
    }

    public static boolean has(int flags, int flag) {
        return (flags & flag) == flag;
    }
}
