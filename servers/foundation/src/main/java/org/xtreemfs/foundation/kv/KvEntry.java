package org.xtreemfs.foundation.kv;

import java.util.Arrays;
import java.util.HexFormat;

/** One key and its value. Arrays are owned by the entry; equality compares contents. */
public record KvEntry(byte[] key, byte[] value) {

    @Override
    public boolean equals(Object other) {
        return other instanceof KvEntry entry && Arrays.equals(key, entry.key)
                && Arrays.equals(value, entry.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "KvEntry[" + HexFormat.of().formatHex(key) + "=" + value.length + " bytes]";
    }
}
