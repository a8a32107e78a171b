package org.xtreemfs.qos.routing;

import java.util.List;
import java.util.Objects;

/**
 * What a router knows about one read: the stream's ordinal in its replication group (order of first access),
 * its classified pattern, and the outstanding requests per replica in chain order (head first) as the OSDs
 * report them.
 */
public record ReadContext(int streamOrdinal, AccessPattern pattern, List<Integer> outstandingPerReplica) {
    public ReadContext {
        if (streamOrdinal < 0) {
            throw new IllegalArgumentException("streamOrdinal must be >= 0, was " + streamOrdinal);
        }
        Objects.requireNonNull(pattern, "pattern");
        outstandingPerReplica = List.copyOf(outstandingPerReplica);
        if (outstandingPerReplica.isEmpty()) {
            throw new IllegalArgumentException("a group needs at least one replica");
        }
    }

    public int replicaCount() {
        return outstandingPerReplica.size();
    }
}
