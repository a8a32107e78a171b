package org.xtreemfs.qos.device;

/**
 * Maps writes to appends in a log region {@code [logStartBytes, logEndBytes)}, as the tail of a FAST
 * replication group stores data: whatever the logical offsets, consecutive writes land back to back, so the
 * device sees one sequential stream. The index from logical range to log position lives with the caller; log
 * cleaning is not modelled, so the log wraps to its start when full.
 */
public record LogStructuredLayout(long logStartBytes, long logEndBytes, long appendOffsetBytes) {

    /** Result of placing one write: the device request to issue and the layout after it. */
    public record Append(IoRequest deviceRequest, LogStructuredLayout next) {}

    public LogStructuredLayout {
        if (logStartBytes < 0 || logEndBytes <= logStartBytes) {
            throw new IllegalArgumentException("need 0 <= logStartBytes < logEndBytes");
        }
        if (appendOffsetBytes < logStartBytes || appendOffsetBytes > logEndBytes) {
            throw new IllegalArgumentException("appendOffsetBytes outside the log region");
        }
    }

    public static LogStructuredLayout empty(long logStartBytes, long logEndBytes) {
        return new LogStructuredLayout(logStartBytes, logEndBytes, logStartBytes);
    }

    public Append append(long lengthBytes) {
        if (lengthBytes <= 0 || lengthBytes > logEndBytes - logStartBytes) {
            throw new IllegalArgumentException("lengthBytes must be in (0, log size], was " + lengthBytes);
        }
        long offsetBytes = appendOffsetBytes + lengthBytes <= logEndBytes ? appendOffsetBytes : logStartBytes;
        LogStructuredLayout next = new LogStructuredLayout(logStartBytes, logEndBytes, offsetBytes + lengthBytes);
        return new Append(IoRequest.write(offsetBytes, lengthBytes), next);
    }
}
