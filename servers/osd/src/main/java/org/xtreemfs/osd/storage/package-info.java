/**
 * Object storage on the local file system: a file's objects, its size/epoch sidecar and the persistent
 * deletion queue. Invariant: operations on one file never run concurrently (the storage stage orders
 * them); what a sync write, fsync, truncate or unlink acknowledged is on stable storage.
 */
package org.xtreemfs.osd.storage;
