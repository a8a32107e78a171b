package org.xtreemfs.mrc.metadata;

/** The S_IFMT type bits and permission bits of {@code Stat.mode}, as in Linux's struct stat. */
public final class FileModes {
    public static final int S_IFMT = 0170000;
    public static final int S_IFSOCK = 0140000;
    public static final int S_IFLNK = 0120000;
    public static final int S_IFREG = 0100000;
    public static final int S_IFBLK = 0060000;
    public static final int S_IFDIR = 0040000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFIFO = 0010000;
    public static final int S_ISUID = 04000;
    public static final int S_ISGID = 02000;
    public static final int S_ISVTX = 01000;
    public static final int S_IXGRP = 00010;
    /** Permission bits plus setuid, setgid and sticky: what chmod may change. */
    public static final int PERMISSION_MASK = 07777;

    private FileModes() {}

    public static int type(int mode) {
        return mode & S_IFMT;
    }

    public static boolean isDirectory(int mode) {
        return type(mode) == S_IFDIR;
    }

    public static boolean isRegularFile(int mode) {
        return type(mode) == S_IFREG;
    }

    public static boolean isSymlink(int mode) {
        return type(mode) == S_IFLNK;
    }

    /** Types mknod may create: regular files, FIFOs, sockets, character and block devices. */
    public static boolean isMknodType(int type) {
        return type == S_IFREG || type == S_IFIFO || type == S_IFSOCK || type == S_IFCHR || type == S_IFBLK;
    }
}
