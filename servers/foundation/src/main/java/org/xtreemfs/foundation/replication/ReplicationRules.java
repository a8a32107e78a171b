package org.xtreemfs.foundation.replication;

import java.util.Optional;
import org.xtreemfs.interfaces.common.ReplicationPolicy;

/**
 * What a replication policy may say; the one place tools and the MRC check it. A chain longer than
 * {@value #REPLICAS_MAX} adds a network hop per write for no gain in what the design protects against (any one
 * OSD of a chain failing).
 */
public final class ReplicationRules {
    public static final int REPLICAS_MIN = 1;
    public static final int REPLICAS_MAX = 8;
    /**
     * The key of the DIR service static attribute (dir.proto Service.static_attributes) naming the host an OSD
     * runs on (its advertised address): the MRC puts a chain's replicas on distinct hosts where there are several.
     */
    public static final String HOST_ATTRIBUTE = "host";

    private ReplicationRules() {}

    /** Why a replica count is refused, as a phrase the caller appends to the name and value; empty when valid. */
    public static Optional<String> replicasProblem(long replicas) {
        if (replicas < REPLICAS_MIN || replicas > REPLICAS_MAX) {
            return Optional.of("is not a valid replica count: it must be between " + REPLICAS_MIN + " and "
                    + REPLICAS_MAX + " (1: one copy, no replication)");
        }
        return Optional.empty();
    }

    /** The copies a policy asks for: an absent policy (0) means one. */
    public static int replicas(ReplicationPolicy policy) {
        return policy.getReplicas() == 0 ? 1 : policy.getReplicas();
    }
}
