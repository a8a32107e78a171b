/**
 * An ordered byte-key store: {@link org.xtreemfs.foundation.kv.RocksKvStore} in servers,
 * {@link org.xtreemfs.foundation.kv.InMemoryKvStore} in unit tests and the simulator, both held to
 * one contract test. Invariants: keys sort as unsigned bytes; a
 * {@link org.xtreemfs.foundation.kv.WriteBatch} is applied all or nothing; an iterator sees the
 * store as of its creation.
 */
package org.xtreemfs.foundation.kv;
