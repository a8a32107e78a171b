package org.xtreemfs.qos.device;

import java.util.Objects;

/** A contiguous device request: the byte range {@code [offsetBytes, offsetBytes + lengthBytes)} and its direction. */
public record IoRequest(long offsetBytes, long lengthBytes, IoKind kind) {
    public IoRequest {
        if (offsetBytes < 0) {
            throw new IllegalArgumentException("offsetBytes must be >= 0, was " + offsetBytes);
        }
        if (lengthBytes <= 0) {
            throw new IllegalArgumentException("lengthBytes must be > 0, was " + lengthBytes);
        }
        Objects.requireNonNull(kind, "kind");
    }

    public static IoRequest read(long offsetBytes, long lengthBytes) {
        return new IoRequest(offsetBytes, lengthBytes, IoKind.READ);
    }

    public static IoRequest write(long offsetBytes, long lengthBytes) {
        return new IoRequest(offsetBytes, lengthBytes, IoKind.WRITE);
    }

    public long endBytes() {
        return offsetBytes + lengthBytes;
    }
}
