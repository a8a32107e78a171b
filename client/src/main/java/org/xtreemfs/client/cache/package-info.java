/**
 * The client's metadata cache: getattr results reused for a TTL. Invariant: bounded in entries, and every
 * local change to a path invalidates that path (and its subtree for renames and removals) before returning.
 */
package org.xtreemfs.client.cache;
