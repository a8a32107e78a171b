package org.xtreemfs.qos.routing;

import java.util.List;
import java.util.OptionalInt;

/**
 * "Default with steal" (FAST): a replica whose device is idle and whose own queue is empty takes a queued read
 * from the replica with the most queued reads, if that one has at least {@code queuedReadsMin}. Only idle
 * replicas steal, so stealing never delays the thief's own work; ties go to the replica nearest the head (the
 * random-read replica, where reads are most expensive).
 */
public record ReadStealing(int queuedReadsMin) {
    public ReadStealing {
        if (queuedReadsMin < 1) {
            throw new IllegalArgumentException("queuedReadsMin must be >= 1, was " + queuedReadsMin);
        }
    }

    /**
     * @param idleReplica the replica asking, which has nothing queued
     * @param queuedReadsPerReplica queued (not yet started) reads per replica in chain order
     * @return the replica to take the oldest queued read from, or empty to stay idle
     */
    public OptionalInt victimFor(int idleReplica, List<Integer> queuedReadsPerReplica) {
        if (idleReplica < 0 || idleReplica >= queuedReadsPerReplica.size()) {
            throw new IllegalArgumentException("idleReplica " + idleReplica + " is not in the group");
        }
        int victim = -1;
        int victimQueuedReads = queuedReadsMin - 1;
        for (int replica = 0; replica < queuedReadsPerReplica.size(); replica++) {
            int queuedReads = queuedReadsPerReplica.get(replica);
            if (replica != idleReplica && queuedReads > victimQueuedReads) {
                victim = replica;
                victimQueuedReads = queuedReads;
            }
        }
        return victim < 0 ? OptionalInt.empty() : OptionalInt.of(victim);
    }
}
