package org.xtreemfs.foundation.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts and deletes that a store applies atomically and in order (a later operation on the same key
 * wins). Not thread-safe: one operation builds one batch. Arrays are copied on add.
 */
public final class WriteBatch {

    /** One operation of a batch. */
    public sealed interface Operation permits Put, Delete {
        byte[] key();
    }

    public record Put(byte[] key, byte[] value) implements Operation {
    }

    public record Delete(byte[] key) implements Operation {
    }

    private final List<Operation> operations = new ArrayList<>();

    public WriteBatch put(byte[] key, byte[] value) {
        operations.add(new Put(key.clone(), value.clone()));
        return this;
    }

    public WriteBatch delete(byte[] key) {
        operations.add(new Delete(key.clone()));
        return this;
    }

    public List<Operation> operations() {
        return List.copyOf(operations);
    }

    /** The operations without a copy, for the stores in this package (which only read them). */
    List<Operation> operationsView() {
        return operations;
    }

    public int size() {
        return operations.size();
    }

    public boolean isEmpty() {
        return operations.isEmpty();
    }
}
