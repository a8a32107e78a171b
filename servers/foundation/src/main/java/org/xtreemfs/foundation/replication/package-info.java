/**
 * Replication rules every party shares: how many copies a volume may keep ({@link
 * org.xtreemfs.foundation.replication.ReplicationRules}) and how a file's XLoc names its chains ({@link
 * org.xtreemfs.foundation.replication.ReplicaChain}): head = replicas[0], tail = the last replica, chain of stripe
 * position p = the OSDs at position p of every replica in order.
 */
package org.xtreemfs.foundation.replication;
