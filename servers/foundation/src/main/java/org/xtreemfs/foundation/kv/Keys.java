package org.xtreemfs.foundation.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/** Helpers to build keys whose unsigned byte order matches the order callers want. */
public final class Keys {

    private Keys() {
    }

    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Concatenates parts, e.g. a record-kind prefix, a parent id and a name. */
    public static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(length);
        for (byte[] part : parts) {
            buffer.put(part);
        }
        return buffer.array();
    }

    /** Big-endian, so non-negative numbers sort numerically as unsigned bytes. */
    public static byte[] longBigEndian(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    /**
     * The smallest key greater than every key starting with {@code prefix}, or {@code null} if
     * there is none (the prefix is empty or all 0xFF bytes).
     */
    public static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    /** Printable ASCII as text, anything else as hex; for log lines and errors. */
    public static String toDebugString(byte[] key) {
        if (key == null) {
            return "open";
        }
        for (byte b : key) {
            if (b < 0x20 || b > 0x7E) {
                return "0x" + HexFormat.of().formatHex(key);
            }
        }
        return "\"" + new String(key, StandardCharsets.US_ASCII) + "\"";
    }
}
