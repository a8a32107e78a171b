package org.xtreemfs.client.routing;

import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.qos.routing.PatternAwareRouter;
import org.xtreemfs.qos.routing.ReadContext;
import org.xtreemfs.qos.routing.ReadStealing;
import org.xtreemfs.qos.routing.ReplicaRouter;
import org.xtreemfs.qos.routing.RoundRobinBindingRouter;
import org.xtreemfs.qos.routing.StreamClassifier;

/**
 * One open file's read routing, with qos.routing's rules and defaults: each read call is classified (its
 * {@link StreamClassifier} sees the call's offset and length), then each object piece goes to the replica that the
 * volume's policy picks for the piece's stripe position with the loads its OSDs last reported — {@code pattern}:
 * {@link PatternAwareRouter} and {@link ReadStealing} (only reads of a confirmed random stream move, only to a
 * replica with no queue and no write-back to flush); {@code pattern-no-stealing}: the router alone;
 * {@code round-robin}: {@link RoundRobinBindingRouter} by the stream's ordinal (ReplicationRules says which does
 * what). Thread-safe.
 */
public final class ReadRoute {
    private final ReplicaChain chain;
    private final ReplicaLoads loads;
    private final int streamOrdinal;
    private final ReplicaRouter router;
    private final ReadStealing stealing;
    private StreamClassifier classifier = StreamClassifier.start(StreamClassifier.WINDOW_BYTES_DEFAULT,
            StreamClassifier.CONFIRM_REQUESTS_DEFAULT);

    /**
     * @param streamOrdinal this file's place among the client's streams of the volume in order of first read
     *     (the round-robin binding)
     */
    public ReadRoute(ReplicaChain chain, ReadRouting routing, ReplicaLoads loads, int streamOrdinal) {
        this.chain = chain;
        this.loads = loads;
        this.streamOrdinal = streamOrdinal;
        this.router = ReplicationRules.routesByPattern(routing) ? new PatternAwareRouter()
                : new RoundRobinBindingRouter();
        this.stealing = ReplicationRules.steals(routing) ? new ReadStealing(ReadStealing.QUEUED_READS_MIN_DEFAULT)
                : null;
    }

    /**
     * Feeds one read call to the stream's classifier; returns the stream as classified with it, to route the call's
     * pieces with (its pattern, and whether its reads may be stolen).
     */
    public synchronized StreamClassifier observe(long offsetBytes, long lengthBytes) {
        classifier = classifier.observe(offsetBytes, lengthBytes);
        return classifier;
    }

    /** The OSD a piece at {@code stripePosition} of a read of {@code stream} (as {@link #observe} gave it) goes to. */
    public String osdFor(int stripePosition, StreamClassifier stream) {
        // A replica being filled serves no reads (the OSD would redirect to the tail): route among the others.
        List<String> members = chain.readableChainAt(stripePosition);
        if (members.size() == 1) {
            return members.get(0);
        }
        List<Integer> queued = new ArrayList<>(members.size());
        List<Long> dirtyBytes = new ArrayList<>(members.size());
        for (String osdUuid : members) {
            ReplicaLoads.Load load = loads.load(osdUuid);
            queued.add(load.queuedRequests());
            dirtyBytes.add(load.writeBackDirtyBytes());
        }
        ReadContext context = new ReadContext(streamOrdinal, stream.pattern(), queued);
        int replica = stealing == null ? router.readReplica(context)
                : stealing.readReplica(router, context, stream, dirtyBytes);
        return members.get(replica);
    }
}
