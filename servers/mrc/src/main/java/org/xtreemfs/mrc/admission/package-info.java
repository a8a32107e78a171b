/**
 * Admission of QoS reservations: the MRC's reservation ledger wraps qos.scheduler's pure decisions with
 * what the DIR reports about OSDs and with persistence. Invariant: the ledger in memory always equals what
 * the KV store holds, because a decision is computed on the metadata thread, written in the same write
 * batch as the volume it belongs to, and published only after that batch has committed.
 */
package org.xtreemfs.mrc.admission;
