/**
 * Chain replication between OSDs (common.proto XLocSet, FAST, van Renesse and Schneider): an update a chain
 * member has applied is forwarded to its successor, and the member answers its caller only when the rest of the
 * chain has answered, so the head's answer to the client means the tail has the update durably.
 */
package org.xtreemfs.osd.replication;
