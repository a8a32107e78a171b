package org.xtreemfs.sim;

import java.util.Map;
import java.util.TreeMap;
import org.xtreemfs.qos.device.IoRequest;

/**
 * Dirty-page buffer of a replica that writes buffered (FAST head and middle): writes are acknowledged from
 * memory and reach the disk later. Like the Linux writeback, it holds at most {@code dirtyBytesMax} (dirty plus
 * under writeback), starts flushing in the background at half of that, and flushes in ascending offset order
 * from where the last flush ended (one elevator sweep), merging contiguous pages up to {@code flushBytesMax}.
 * Background flushing goes in batches of up to {@code batchBytes} served back to back, and between two batches
 * the device serves {@code requestsBetweenBatches} queued requests, like the deadline I/O scheduler's alternation
 * of read and write batches: writeback neither starves reads nor pays a seek per page.
 */
final class WriteBackBuffer {
    private final long dirtyBytesMax;
    private final long flushBytesMax;
    private final long batchBytes;
    private final int requestsBetweenBatches;
    private long batchRemainingBytes;
    private int requestsBeforeNextBatch;
    private final TreeMap<Long, Long> dirtyLengthByOffset = new TreeMap<>();
    private long dirtyBytes;
    private long writebackBytes;
    private long cursorBytes;
    private long flushedBytes;

    WriteBackBuffer(long dirtyBytesMax, long flushBytesMax, long batchBytes, int requestsBetweenBatches) {
        if (dirtyBytesMax <= 0 || flushBytesMax <= 0 || batchBytes <= 0 || requestsBetweenBatches < 0) {
            throw new IllegalArgumentException("dirtyBytesMax, flushBytesMax and batchBytes must be > 0, "
                    + "requestsBetweenBatches >= 0");
        }
        this.dirtyBytesMax = dirtyBytesMax;
        this.flushBytesMax = flushBytesMax;
        this.batchBytes = batchBytes;
        this.requestsBetweenBatches = requestsBetweenBatches;
    }

    /** Takes the write into the buffer if it fits; rewriting a dirty page does not grow the buffer. */
    boolean tryAbsorb(IoRequest write) {
        Long previousLength = dirtyLengthByOffset.get(write.offsetBytes());
        long growthBytes = write.lengthBytes() - (previousLength == null ? 0 : previousLength);
        if (dirtyBytes + writebackBytes + growthBytes > dirtyBytesMax) {
            return false;
        }
        dirtyLengthByOffset.put(write.offsetBytes(), Math.max(write.lengthBytes(),
                previousLength == null ? 0 : previousLength));
        dirtyBytes += Math.max(0, growthBytes);
        return true;
    }

    boolean hasDirty() {
        return dirtyBytes > 0;
    }

    /** Bytes written to the buffer and not yet handed to the device. */
    long dirtyBytes() {
        return dirtyBytes;
    }

    boolean aboveBackgroundThreshold() {
        return dirtyBytes + writebackBytes >= dirtyBytesMax / 2;
    }

    /**
     * True if the next device operation should be a background flush: a batch is under way, or the buffer is
     * above the background threshold and the queue has had its turn (or has nothing waiting).
     */
    boolean backgroundFlushDue(boolean requestsWaiting) {
        if (!hasDirty()) {
            return false;
        }
        if (batchRemainingBytes <= 0 && aboveBackgroundThreshold()
                && (requestsBeforeNextBatch <= 0 || !requestsWaiting)) {
            batchRemainingBytes = batchBytes;
        }
        return batchRemainingBytes > 0;
    }

    /** The device served a queued request instead of a flush. */
    void requestServed() {
        requestsBeforeNextBatch = Math.max(0, requestsBeforeNextBatch - 1);
    }

    /** Removes the next contiguous dirty run (elevator order) and returns the write that flushes it. */
    IoRequest nextFlush() {
        Map.Entry<Long, Long> first = dirtyLengthByOffset.ceilingEntry(cursorBytes);
        if (first == null) {
            first = dirtyLengthByOffset.firstEntry();
        }
        long startBytes = first.getKey();
        long endBytes = startBytes;
        for (int pages = 0; pages < 1_000_000; pages++) {
            Long length = dirtyLengthByOffset.get(endBytes);
            if (length == null || endBytes - startBytes + length > flushBytesMax && endBytes > startBytes) {
                break;
            }
            dirtyLengthByOffset.remove(endBytes);
            endBytes += length;
        }
        long lengthBytes = endBytes - startBytes;
        dirtyBytes -= lengthBytes;
        writebackBytes += lengthBytes;
        cursorBytes = endBytes;
        if (batchRemainingBytes > 0) {
            batchRemainingBytes -= lengthBytes;
            if (batchRemainingBytes <= 0 || dirtyBytes == 0) {
                batchRemainingBytes = 0;
                requestsBeforeNextBatch = requestsBetweenBatches;
            }
        }
        return IoRequest.syncedWrite(startBytes, lengthBytes); // to the media: no second host buffer
    }

    void flushed(long lengthBytes) {
        writebackBytes -= lengthBytes;
        flushedBytes += lengthBytes;
    }

    long flushedBytes() {
        return flushedBytes;
    }

    long pendingBytes() {
        return dirtyBytes + writebackBytes;
    }
}
