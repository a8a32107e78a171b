package org.xtreemfs.osd.stages;

import java.util.Optional;
import org.xtreemfs.osd.storage.ReplicaRole;

/**
 * This OSD's link in a file's chain for one request: its role and the OSD it forwards updates to (empty for the
 * tail and for an unreplicated file).
 */
public record ChainLink(ReplicaRole role, Optional<String> successorUuid) {
    public static final ChainLink SOLE = new ChainLink(ReplicaRole.SOLE, Optional.empty());

    public ChainLink {
        java.util.Objects.requireNonNull(role, "role");
        java.util.Objects.requireNonNull(successorUuid, "successorUuid");
    }
}
