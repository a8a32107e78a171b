package org.xtreemfs.foundation.kv;

import java.util.Arrays;

/**
 * Keys {@code startInclusive <= key < endExclusive} in unsigned byte order; a {@code null} bound
 * is open. Stores separate their kinds of records by key prefix, so {@link #prefix} is the usual
 * range.
 */
public record KeyRange(byte[] startInclusive, byte[] endExclusive) {

    public KeyRange {
        startInclusive = startInclusive == null ? null : startInclusive.clone();
        endExclusive = endExclusive == null ? null : endExclusive.clone();
    }

    public static KeyRange all() {
        return new KeyRange(null, null);
    }

    public static KeyRange between(byte[] startInclusive, byte[] endExclusive) {
        return new KeyRange(startInclusive, endExclusive);
    }

    /** Every key starting with {@code prefix}. */
    public static KeyRange prefix(byte[] prefix) {
        return new KeyRange(prefix, Keys.prefixEnd(prefix));
    }

    /** Whether the key lies in the range. */
    public boolean contains(byte[] key) {
        return (startInclusive == null || Arrays.compareUnsigned(key, startInclusive) >= 0)
                && (endExclusive == null || Arrays.compareUnsigned(key, endExclusive) < 0);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeyRange range
                && Arrays.equals(startInclusive, range.startInclusive)
                && Arrays.equals(endExclusive, range.endExclusive);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(startInclusive) + Arrays.hashCode(endExclusive);
    }

    @Override
    public String toString() {
        return "KeyRange[" + Keys.toDebugString(startInclusive) + ".."
                + Keys.toDebugString(endExclusive) + ")";
    }
}
