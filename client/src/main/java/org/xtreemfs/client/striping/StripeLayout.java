package org.xtreemfs.client.striping;

import java.util.ArrayList;
import java.util.List;

/**
 * RAID0 striping arithmetic: object n holds file bytes [n*objectSize, (n+1)*objectSize) and lives on stripe
 * position n mod width. Pure: no I/O, so every rule of the layout is tested without servers.
 */
public record StripeLayout(int objectSizeBytes, int width) {
    public StripeLayout {
        if (objectSizeBytes <= 0) {
            throw new IllegalArgumentException("object size must be positive: " + objectSizeBytes);
        }
        if (width <= 0) {
            throw new IllegalArgumentException("stripe width must be positive: " + width);
        }
    }

    /** The object holding the byte at {@code fileOffset}. */
    public long objectNumber(long fileOffset) {
        requireNonNegative(fileOffset);
        return fileOffset / objectSizeBytes;
    }

    /** The index into the replica's OSD list that stores {@code objectNumber}. */
    public int stripePosition(long objectNumber) {
        requireNonNegative(objectNumber);
        return (int) (objectNumber % width);
    }

    /** The file offset of the first byte of {@code objectNumber}. */
    public long objectStart(long objectNumber) {
        requireNonNegative(objectNumber);
        return Math.multiplyExact(objectNumber, (long) objectSizeBytes);
    }

    /** The number of objects a file of {@code fileSizeBytes} spans (0 for an empty file). */
    public long objectCount(long fileSizeBytes) {
        requireNonNegative(fileSizeBytes);
        return fileSizeBytes == 0 ? 0 : (fileSizeBytes - 1) / objectSizeBytes + 1;
    }

    /**
     * Splits [fileOffset, fileOffset+lengthBytes) into per-object slices in file order. The slices are
     * contiguous, non-overlapping, each within one object, and their lengths sum to {@code lengthBytes}.
     */
    public List<ObjectSlice> slices(long fileOffset, int lengthBytes) {
        return slices(fileOffset, lengthBytes, objectSizeBytes);
    }

    /**
     * Like {@link #slices(long, int)}, but no slice is longer than {@code sliceBytesMax}: large objects are
     * read and written in several requests so that one request's data stays within the RPC frame limit.
     */
    public List<ObjectSlice> slices(long fileOffset, int lengthBytes, int sliceBytesMax) {
        if (sliceBytesMax <= 0) {
            throw new IllegalArgumentException("slice bound must be positive: " + sliceBytesMax);
        }
        requireNonNegative(fileOffset);
        if (lengthBytes < 0) {
            throw new IllegalArgumentException("length must not be negative: " + lengthBytes);
        }
        Math.addExact(fileOffset, (long) lengthBytes);
        int sliceBound = Math.min(sliceBytesMax, objectSizeBytes);
        List<ObjectSlice> slices = new ArrayList<>(lengthBytes / sliceBound + 2);
        int done = 0;
        while (done < lengthBytes) {
            long position = fileOffset + done;
            long objectNumber = position / objectSizeBytes;
            int offsetInObject = (int) (position - objectNumber * objectSizeBytes);
            int sliceLength = Math.min(Math.min(objectSizeBytes - offsetInObject, lengthBytes - done), sliceBound);
            slices.add(new ObjectSlice(objectNumber, offsetInObject, sliceLength, done));
            done += sliceLength;
        }
        return slices;
    }

    private static void requireNonNegative(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("must not be negative: " + value);
        }
    }
}
