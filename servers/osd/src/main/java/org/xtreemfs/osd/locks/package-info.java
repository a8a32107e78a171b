/**
 * Advisory file locks kept by a file's head OSD: POSIX byte-range locks and flock whole-file locks, per file,
 * in memory, with a lease per client. Pure apart from the injected clock (no RPC, no threads). Invariant: the
 * POSIX locks of one owner on one file never overlap and never touch when they have the same mode.
 */
package org.xtreemfs.osd.locks;
