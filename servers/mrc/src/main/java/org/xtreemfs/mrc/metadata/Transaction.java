package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.xtreemfs.foundation.kv.Durability;

/**
 * The writes of one metadata operation, collected so the operation commits as ONE atomic write batch.
 * Reads see the operation's own earlier writes. Opened by {@link Namespace#begin()}; operations change
 * records through the namespace's typed accessors, raw keys stay inside this package (except
 * {@link #write}, through which the admission ledger's own records join the same batch). Not
 * thread-safe: changing operations run one at a time on the metadata stage (its thread, or a network
 * thread applying while the stage is idle: {@code MetadataStage}), which is also what makes
 * read-then-write safe without further locks; a read-only operation elsewhere uses its own transaction.
 */
public final class Transaction {
    private final Namespace namespace;
    private final Durability durability;
    private final Map<ByteBuffer, Optional<byte[]>> pending = new LinkedHashMap<>();
    /** Non-null while {@link OutcomeJournal} runs the operation: commit adds the writes here instead. */
    private final Map<ByteBuffer, Optional<byte[]>> held;

    Transaction(Namespace namespace, Durability durability, Map<ByteBuffer, Optional<byte[]>> held) {
        this.namespace = namespace;
        this.durability = durability;
        this.held = held;
    }

    Optional<byte[]> get(byte[] key) {
        Optional<byte[]> written = pending.get(ByteBuffer.wrap(key));
        if (written != null) {
            return written;
        }
        if (held != null && (written = held.get(ByteBuffer.wrap(key))) != null) {
            return written;
        }
        return namespace.committedValue(key);
    }

    /**
     * {@link #get} of a key this operation deletes: a miss is read from the store without filling the cache of
     * committed values ({@link Namespace#committedValueNotCached}).
     */
    Optional<byte[]> getNotCached(byte[] key) {
        Optional<byte[]> written = ownWrite(key);
        return written != null ? written : namespace.committedValueNotCached(key);
    }

    /** {@link #get} of a key expected to be absent ({@link Namespace#lookupExpectedAbsent}). */
    Optional<byte[]> getExpectedAbsent(byte[] key) {
        Optional<byte[]> written = ownWrite(key);
        return written != null ? written : namespace.committedValueExpectedAbsent(key);
    }

    /**
     * {@link #get} decoded: this operation's own write decoded anew, a committed value decoded once for all readers
     * ({@link Namespace#committedDecoded}; {@code decoder} is the key kind's one decoder).
     */
    <T> Optional<T> getDecoded(byte[] key, Function<byte[], T> decoder) {
        Optional<byte[]> written = ownWrite(key);
        return written != null ? written.map(decoder) : namespace.committedDecoded(key, decoder);
    }

    /** This operation's own write of {@code key} (empty: deleted), or null when it wrote none. */
    Optional<byte[]> ownWrite(byte[] key) {
        Optional<byte[]> written = pending.get(ByteBuffer.wrap(key));
        if (written == null && held != null) {
            written = held.get(ByteBuffer.wrap(key));
        }
        return written;
    }

    void put(byte[] key, byte[] value) {
        pending.put(ByteBuffer.wrap(key.clone()), Optional.of(value.clone()));
    }

    void delete(byte[] key) {
        pending.put(ByteBuffer.wrap(key.clone()), Optional.empty());
    }

    /**
     * A put (value present) or a delete (empty) of a record another authority owns (the reservation
     * ledger's {@code LedgerChange.forEachWrite}), so it commits in this operation's batch.
     */
    public void write(byte[] key, Optional<byte[]> value) {
        if (value.isPresent()) {
            put(key, value.get());
        } else {
            delete(key);
        }
    }

    public boolean isEmpty() {
        return pending.isEmpty();
    }

    /**
     * Writes every pending change as one batch; a no-op when nothing changed. While the operation runs
     * under {@link OutcomeJournal#applyOnce} the changes are held instead and written by the journal in
     * one batch with the operation's recorded outcome.
     */
    public void commit() {
        if (pending.isEmpty()) {
            return;
        }
        if (held != null) {
            held.putAll(pending);
            pending.clear();
            return;
        }
        namespace.write(pending, durability);
        pending.clear();
    }
}
