/**
 * The command-line tools over the client library: mkfs.xtreemfs, rmfs.xtreemfs, lsfs.xtreemfs and xtfsutil.
 * Invariant: exit 0 on success, 1 when the servers refuse or cannot be reached, 2 for a bad option or value,
 * and every error is one line naming the bad value.
 */
package org.xtreemfs.client.tools;
