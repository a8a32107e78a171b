package org.xtreemfs.foundation.rpc;

/**
 * The fixed prefix of every record: three big-endian unsigned 32-bit lengths (header, message, data).
 * Lengths are validated against {@link FrameLimits} before any buffer is allocated, so a peer cannot make
 * us reserve memory it does not send.
 */
public record RecordMarker(int headerLength, int messageLength, int dataLength) {
    public static final int SIZE_BYTES = 12;

    /** Total bytes that follow the marker. */
    public long bodyLength() {
        return (long) headerLength + messageLength + dataLength;
    }
}
