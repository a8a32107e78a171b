package org.xtreemfs.osd.stages;

import java.util.Optional;
import org.xtreemfs.osd.storage.ReplicaRole;

/**
 * This OSD's link in a file's chain for one request: its role, the OSD it forwards updates to (empty for the tail
 * and for an unreplicated file), the XLoc version the request carries, and, while this OSD's replica is being filled,
 * the OSD it copies from (foundation.replication.ReplicaChain#fillSource; empty once filled), and the OSD a read it
 * must not serve goes down to (ReplicaChain#readSuccessor: the successor, skipping a filling one).
 */
public record ChainLink(ReplicaRole role, Optional<String> successorUuid, int xlocVersion,
        Optional<String> fillSourceUuid, Optional<String> readSuccessorUuid) {
    public static final ChainLink SOLE = new ChainLink(ReplicaRole.SOLE, Optional.empty());

    public ChainLink {
        java.util.Objects.requireNonNull(role, "role");
        java.util.Objects.requireNonNull(successorUuid, "successorUuid");
        java.util.Objects.requireNonNull(fillSourceUuid, "fillSourceUuid");
        java.util.Objects.requireNonNull(readSuccessorUuid, "readSuccessorUuid");
    }

    /** A link whose reads pass down to its successor (no filling replica after it). */
    public ChainLink(ReplicaRole role, Optional<String> successorUuid, int xlocVersion,
            Optional<String> fillSourceUuid) {
        this(role, successorUuid, xlocVersion, fillSourceUuid, successorUuid);
    }

    /** A link of a filled replica under the first XLoc version. */
    public ChainLink(ReplicaRole role, Optional<String> successorUuid) {
        this(role, successorUuid, 1, Optional.empty());
    }

    /** Whether this OSD's replica joined the chain and is still being filled. */
    public boolean filling() {
        return fillSourceUuid.isPresent();
    }
}
