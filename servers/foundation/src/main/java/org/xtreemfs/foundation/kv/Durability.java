package org.xtreemfs.foundation.kv;

/** How durable a write is when {@link KvStore#write} returns. The write-ahead log is always on. */
public enum Durability {
    /** In the WAL in the OS page cache: survives a process crash, not a power loss. */
    BUFFERED,
    /** The WAL is fsynced before returning: use before acknowledging a client's fsync. */
    SYNC
}
