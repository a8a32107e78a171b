package org.xtreemfs.osd.locks;

/** POSIX record locks and flock locks never conflict with each other, as on Linux. */
public enum LockKind {
    POSIX, FLOCK
}
