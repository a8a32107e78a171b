/**
 * The namespace core: volumes and the POSIX namespace on the KV store (layout in
 * {@link org.xtreemfs.mrc.metadata.KvLayout}, private to this package), path resolution, permissions and the
 * helpers operations share. The operations themselves live in {@code org.xtreemfs.mrc.ops}.
 * Invariant: every change goes through a {@link org.xtreemfs.mrc.metadata.Transaction}, so an operation
 * commits all of its changes as one atomic write batch or nothing, and runs alone (the metadata stage's
 * single thread), so the tree is consistent after every operation and restart.
 */
package org.xtreemfs.mrc.metadata;
