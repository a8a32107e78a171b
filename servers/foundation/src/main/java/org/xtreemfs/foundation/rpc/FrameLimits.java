package org.xtreemfs.foundation.rpc;

/**
 * Upper bounds on the parts of one record. A record outside these bounds is malformed: the connection that
 * sent it is closed and nothing else is affected.
 */
public record FrameLimits(int headerBytesMax, int messageBytesMax, int dataBytesMax) {
    /** Enough for 2 MiB objects plus generous metadata. */
    public static final FrameLimits DEFAULT = new FrameLimits(64 * 1024, 4 * 1024 * 1024, 16 * 1024 * 1024);

    public FrameLimits {
        if (headerBytesMax <= 0 || messageBytesMax < 0 || dataBytesMax < 0) {
            throw new IllegalArgumentException("frame limits must be positive: " + headerBytesMax + ", "
                    + messageBytesMax + ", " + dataBytesMax);
        }
    }

    /** Returns null when the marker is acceptable, otherwise why it is not. */
    String violation(long headerLength, long messageLength, long dataLength) {
        if (headerLength <= 0 || headerLength > headerBytesMax) {
            return "header length " + headerLength + " outside 1.." + headerBytesMax;
        }
        if (messageLength < 0 || messageLength > messageBytesMax) {
            return "message length " + messageLength + " outside 0.." + messageBytesMax;
        }
        if (dataLength < 0 || dataLength > dataBytesMax) {
            return "data length " + dataLength + " outside 0.." + dataBytesMax;
        }
        return null;
    }
}
