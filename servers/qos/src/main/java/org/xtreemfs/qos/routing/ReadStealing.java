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
    /** What clients use (FAST scenario's {@code steal.queued.reads.min}). */
    public static final int QUEUED_READS_MIN_DEFAULT = 2;

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

    /**
     * The same rule seen from a client, which routes each read itself with the queue lengths the replicas last
     * reported: an idle replica (nothing queued) whose {@link #victimFor} is {@code routedReplica} takes the read,
     * the one nearest the tail first; empty when none would. Nearest the tail, because under pattern routing the
     * head serves the random reads and the next replica the sequential ones, while the tail (and any replica after
     * the second) serves no routed reads: a read it takes delays no reader class, whereas a random read taken by
     * the sequential replica breaks that replica's stream (FAST's "stealing must not hurt the class it steals
     * from").
     */
    public OptionalInt thiefFor(int routedReplica, List<Integer> queuedReadsPerReplica) {
        if (routedReplica < 0 || routedReplica >= queuedReadsPerReplica.size()) {
            throw new IllegalArgumentException("routedReplica " + routedReplica + " is not in the group");
        }
        for (int replica = queuedReadsPerReplica.size() - 1; replica >= 0; replica--) {
            if (replica != routedReplica && queuedReadsPerReplica.get(replica) == 0) {
                OptionalInt victim = victimFor(replica, queuedReadsPerReplica);
                if (victim.isPresent() && victim.getAsInt() == routedReplica) {
                    return OptionalInt.of(replica);
                }
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Where a client sends a read: {@code router}'s replica, unless an idle replica steals it ({@link #thiefFor}
     * with the context's loads as queued reads).
     */
    public int readReplica(ReplicaRouter router, ReadContext context) {
        int routed = router.readReplica(context);
        return thiefFor(routed, context.outstandingPerReplica()).orElse(routed);
    }
}
