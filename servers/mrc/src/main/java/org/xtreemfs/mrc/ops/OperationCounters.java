package org.xtreemfs.mrc.ops;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Per-procedure counts of answered calls and errors, for the status page. Thread-safe. */
public final class OperationCounters {
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    void record(String procedure, boolean failed) {
        calls.computeIfAbsent(procedure, key -> new LongAdder()).increment();
        if (failed) {
            errors.computeIfAbsent(procedure, key -> new LongAdder()).increment();
        }
    }

    /** Procedure name to {calls, errors}, sorted by name. */
    public Map<String, long[]> snapshot() {
        Map<String, long[]> result = new TreeMap<>();
        calls.forEach((procedure, count) -> result.put(procedure, new long[] {count.sum(),
                errors.getOrDefault(procedure, new LongAdder()).sum()}));
        return result;
    }
}
