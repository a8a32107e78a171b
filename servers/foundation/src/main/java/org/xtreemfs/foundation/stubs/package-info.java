/**
 * Typed client stubs of the DIR, MRC and OSD interfaces: one method per procedure of interface/proto, each a
 * thin call through {@link org.xtreemfs.foundation.rpc.RpcClient}. Invariant: a stub never retries; retry
 * policy belongs to the caller, who knows whether the operation is idempotent.
 */
package org.xtreemfs.foundation.stubs;
