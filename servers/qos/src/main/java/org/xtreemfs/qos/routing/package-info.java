/**
 * Pattern-aware replica routing for chain-replicated groups (the FAST design): classify each open file's stream
 * as sequential or random, and pick the replica that serves a read. Invariant: pure functions of their inputs —
 * the same stream and the same replica loads always give the same route.
 */
package org.xtreemfs.qos.routing;
