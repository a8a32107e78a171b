/**
 * Volumes and the POSIX namespace on the KV store (layout in {@link org.xtreemfs.mrc.metadata.KvLayout}).
 * Invariant: every operation commits all of its changes as one atomic write batch or nothing, and runs
 * alone (the metadata stage's single thread), so the tree is consistent after every operation and restart.
 */
package org.xtreemfs.mrc.metadata;
