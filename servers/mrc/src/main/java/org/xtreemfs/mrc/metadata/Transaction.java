package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * The writes of one metadata operation, collected so the operation commits as ONE atomic write batch.
 * Reads see the operation's own earlier writes. Not thread-safe: operations run on the single metadata
 * thread, which is also what makes read-then-write safe without locks.
 */
final class Transaction {
    private final KvStore store;
    private final Map<ByteBuffer, Optional<byte[]>> pending = new LinkedHashMap<>();

    Transaction(KvStore store) {
        this.store = store;
    }

    Optional<byte[]> get(byte[] key) {
        Optional<byte[]> written = pending.get(ByteBuffer.wrap(key));
        if (written != null) {
            return written;
        }
        return store.get(key);
    }

    void put(byte[] key, byte[] value) {
        pending.put(ByteBuffer.wrap(key.clone()), Optional.of(value.clone()));
    }

    void delete(byte[] key) {
        pending.put(ByteBuffer.wrap(key.clone()), Optional.empty());
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** Writes every pending change as one batch; a no-op when nothing changed. */
    void commit(Durability durability) {
        if (pending.isEmpty()) {
            return;
        }
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<ByteBuffer, Optional<byte[]>> entry : pending.entrySet()) {
            byte[] key = entry.getKey().array();
            if (entry.getValue().isPresent()) {
                batch.put(key, entry.getValue().get());
            } else {
                batch.delete(key);
            }
        }
        store.write(batch, durability);
        pending.clear();
    }
}
