package org.xtreemfs.mrc.admission;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.xtreemfs.interfaces.common.OsdProfile;
import org.xtreemfs.qos.scheduler.ClusterState;

/**
 * A decided but not yet published change of the ledger: the next state and the KV writes that persist it.
 * The caller adds the writes to its operation's write batch and, once that batch has committed, passes the
 * change to {@link ReservationLedger#publish}. Keys map to their new value, or to empty for a deletion.
 */
public final class LedgerChange {
    private final ClusterState next;
    private final Map<String, OsdProfile> profiles;
    private final Map<ByteBuffer, Optional<byte[]>> writes;

    LedgerChange(ClusterState next, Map<String, OsdProfile> profiles, Map<ByteBuffer, Optional<byte[]>> writes) {
        this.next = next;
        this.profiles = Map.copyOf(profiles);
        this.writes = Collections.unmodifiableMap(new LinkedHashMap<>(writes));
    }

    ClusterState next() {
        return next;
    }

    /** The OSD profiles as registered (with source and measurement time), by uuid. */
    Map<String, OsdProfile> profiles() {
        return profiles;
    }

    /** Each key with its new value, or empty for a deletion, in the order they were decided. */
    public void forEachWrite(BiConsumer<byte[], Optional<byte[]>> write) {
        for (Map.Entry<ByteBuffer, Optional<byte[]>> entry : writes.entrySet()) {
            write.accept(entry.getKey().array().clone(), entry.getValue().map(byte[]::clone));
        }
    }
}
