package org.xtreemfs.foundation.replication;

import java.util.Locale;
import java.util.Optional;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * What a replication policy may say; the one place tools and the MRC check it. A chain longer than
 * {@value #REPLICAS_MAX} adds a network hop per write for no gain in what the design protects against (any one
 * OSD of a chain failing). Also the one place read-routing policies get their names (common.proto ReadRouting):
 * {@code pattern} (FAST, the default), {@code pattern-no-stealing} and {@code round-robin}, and the one place
 * that says what each does ({@link #routesByPattern}, {@link #steals}).
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

    /** The names tools accept and print, in the enum's order. */
    public static final String READ_ROUTING_PATTERN = "pattern";
    public static final String READ_ROUTING_ROUND_ROBIN = "round-robin";
    public static final String READ_ROUTING_PATTERN_NO_STEALING = "pattern-no-stealing";

    /** The policy named {@code name} (case-insensitive); IllegalArgumentException naming the value and the choices. */
    public static ReadRouting readRoutingNamed(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case READ_ROUTING_PATTERN -> ReadRouting.READ_ROUTING_PATTERN;
            case READ_ROUTING_ROUND_ROBIN -> ReadRouting.READ_ROUTING_ROUND_ROBIN;
            case READ_ROUTING_PATTERN_NO_STEALING -> ReadRouting.READ_ROUTING_PATTERN_NO_STEALING;
            default -> throw new IllegalArgumentException("read routing \"" + name + "\" is not a policy: choose "
                    + READ_ROUTING_PATTERN + " (random reads to the head, sequential reads to the next replica, idle"
                    + " replicas steal), " + READ_ROUTING_PATTERN_NO_STEALING + " (the same without stealing) or "
                    + READ_ROUTING_ROUND_ROBIN + " (each open file bound to a replica in turn)");
        };
    }

    /** The name of a policy; an absent policy is {@code pattern}. */
    public static String readRoutingName(ReadRouting routing) {
        return switch (readRouting(routing)) {
            case READ_ROUTING_ROUND_ROBIN -> READ_ROUTING_ROUND_ROBIN;
            case READ_ROUTING_PATTERN_NO_STEALING -> READ_ROUTING_PATTERN_NO_STEALING;
            default -> READ_ROUTING_PATTERN;
        };
    }

    /** The policy in force: absent (or unknown to this version) means {@code pattern}. */
    public static ReadRouting readRouting(ReadRouting routing) {
        return switch (routing) {
            case READ_ROUTING_ROUND_ROBIN, READ_ROUTING_PATTERN_NO_STEALING -> routing;
            default -> ReadRouting.READ_ROUTING_PATTERN;
        };
    }

    /**
     * Whether a policy routes each read by its stream's pattern (qos.routing.PatternAwareRouter: random reads to the
     * head, sequential ones to the next replica); otherwise each open file is bound to a replica in turn
     * (RoundRobinBindingRouter).
     */
    public static boolean routesByPattern(ReadRouting routing) {
        return readRouting(routing) != ReadRouting.READ_ROUTING_ROUND_ROBIN;
    }

    /** Whether idle replicas steal reads under a policy (qos.routing.ReadStealing): {@code pattern} only. */
    public static boolean steals(ReadRouting routing) {
        return readRouting(routing) == ReadRouting.READ_ROUTING_PATTERN;
    }

    /** The read routing of a volume's policy, default filled in. */
    public static ReadRouting readRouting(ReplicationPolicy policy) {
        return readRouting(policy.getReadRouting());
    }

    /** The read routing a file's XLoc carries, default filled in. */
    public static ReadRouting readRouting(XLocSet xlocs) {
        return readRouting(xlocs.getReadRouting());
    }
}
