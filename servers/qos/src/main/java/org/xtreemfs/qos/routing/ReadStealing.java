package org.xtreemfs.qos.routing;

import java.util.List;
import java.util.OptionalInt;

/**
 * "Default with steal" (FAST): a replica that is idle ({@link #thiefIdle}: its device free, its own queue empty and
 * nothing of its own write-back to flush) takes a queued stealable read ({@link #mayStealReadOf}: a read of a
 * confirmed random stream) from the replica with the most queued stealable reads, if that one has at least
 * {@code queuedReadsMin}. Only idle replicas steal, so stealing never delays the thief's own work, its readers' or
 * its writers'; only confirmed random reads move, so no sequential stream is split across replicas; ties go to the
 * replica nearest the head (the random-read replica, where reads are most expensive).
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
     * Whether a read of this stream may be stolen: only once the client has confirmed the stream random
     * ({@link StreamClassifier#confirmRequests} jumps in a row). A new stream starts RANDOM before anything is known
     * about it, and a sequential stream's first reads look like that; stealing them sent the start of the sequential
     * readers' streams to the random-read replicas and cost the sequential class 2.8x its completion time (the FAST
     * simulation at one outstanding read per tenant, tests/sim/README.md). A sequential read is cheap only where its
     * stream's read-ahead is, so it is never stolen.
     */
    public static boolean mayStealReadOf(StreamClassifier stream) {
        return stream.pattern() == AccessPattern.RANDOM && stream.jumpRun() >= stream.confirmRequests();
    }

    /**
     * Whether a replica may steal now: nothing of its own queued and nothing of its own write-back to flush (its
     * buffered writes are its writers' work, which a stolen read would delay). The caller also requires its device
     * to be free.
     *
     * @param ownQueuedRequests requests waiting in the replica's own queue
     * @param ownDirtyBytes bytes in the replica's write-back not yet being flushed (0 for a replica that writes
     *     through)
     */
    public static boolean thiefIdle(int ownQueuedRequests, long ownDirtyBytes) {
        if (ownQueuedRequests < 0 || ownDirtyBytes < 0) {
            throw new IllegalArgumentException("ownQueuedRequests and ownDirtyBytes must be >= 0, were "
                    + ownQueuedRequests + " and " + ownDirtyBytes);
        }
        return ownQueuedRequests == 0 && ownDirtyBytes == 0;
    }

    /**
     * @param idleReplica the replica asking, which is {@link #thiefIdle idle}
     * @param queuedReadsPerReplica queued (not yet started) stealable reads per replica in chain order
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
     * The same rule seen from a client, which routes each read itself with what the replicas last reported: an idle
     * replica ({@link #thiefIdle} with its reported queue and write-back) whose {@link #victimFor} is
     * {@code routedReplica} takes the read, the one nearest the tail first; empty when none would. Nearest the tail,
     * because under pattern routing the head serves the random reads and the next replica the sequential ones,
     * while the tail (and any replica after the second) serves no routed reads: a read it takes delays no reader
     * class, whereas a random read taken by the sequential replica breaks that replica's stream (FAST's "stealing
     * must not hurt the class it steals from").
     *
     * @param queuedReadsPerReplica the replicas' reported queue lengths in chain order
     * @param dirtyBytesPerReplica the replicas' reported write-back not yet flushed, in chain order
     */
    public OptionalInt thiefFor(int routedReplica, List<Integer> queuedReadsPerReplica,
            List<Long> dirtyBytesPerReplica) {
        if (routedReplica < 0 || routedReplica >= queuedReadsPerReplica.size()) {
            throw new IllegalArgumentException("routedReplica " + routedReplica + " is not in the group");
        }
        if (dirtyBytesPerReplica.size() != queuedReadsPerReplica.size()) {
            throw new IllegalArgumentException(dirtyBytesPerReplica.size() + " write-back reports for "
                    + queuedReadsPerReplica.size() + " replicas");
        }
        for (int replica = queuedReadsPerReplica.size() - 1; replica >= 0; replica--) {
            if (replica != routedReplica
                    && thiefIdle(queuedReadsPerReplica.get(replica), dirtyBytesPerReplica.get(replica))) {
                OptionalInt victim = victimFor(replica, queuedReadsPerReplica);
                if (victim.isPresent() && victim.getAsInt() == routedReplica) {
                    return OptionalInt.of(replica);
                }
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Where a client sends a read of {@code stream}: {@code router}'s replica, unless the read may be stolen
     * ({@link #mayStealReadOf}) and an idle replica steals it ({@link #thiefFor} with the context's loads as queued
     * reads and the replicas' reported write-back).
     *
     * @param stream the read's stream as classified with this read; its pattern is the context's
     */
    public int readReplica(ReplicaRouter router, ReadContext context, StreamClassifier stream,
            List<Long> dirtyBytesPerReplica) {
        if (stream.pattern() != context.pattern()) {
            throw new IllegalArgumentException("the context's pattern " + context.pattern()
                    + " is not the stream's " + stream.pattern());
        }
        int routed = router.readReplica(context);
        if (!mayStealReadOf(stream)) {
            return routed;
        }
        return thiefFor(routed, context.outstandingPerReplica(), dirtyBytesPerReplica).orElse(routed);
    }
}
