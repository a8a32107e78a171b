/**
 * The MRC's link to the DIR: service registration and heartbeat, volume registration, and the cached list
 * of online OSDs that placement chooses from. Invariant: the DIR being unreachable never blocks a thread.
 */
package org.xtreemfs.mrc.registry;
