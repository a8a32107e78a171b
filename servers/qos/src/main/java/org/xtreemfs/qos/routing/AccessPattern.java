package org.xtreemfs.qos.routing;

/** Access pattern of one open file's request stream. */
public enum AccessPattern {
    SEQUENTIAL,
    RANDOM
}
