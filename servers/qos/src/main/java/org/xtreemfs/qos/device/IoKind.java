package org.xtreemfs.qos.device;

/** Direction of a device request. */
public enum IoKind {
    READ,
    WRITE
}
