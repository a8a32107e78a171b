package org.xtreemfs.osd.storage;

/**
 * Where a file's objects live, seen from one OSD: RAID0 with {@code width} positions, object n on position
 * n mod width; this OSD is position {@code position}. Object n holds file bytes [n*size, (n+1)*size).
 */
public record StripeLayout(int objectSizeBytes, int width, int position) {

    public StripeLayout {
        if (objectSizeBytes <= 0) {
            throw new IllegalArgumentException("object size must be positive: " + objectSizeBytes);
        }
        if (width <= 0 || position < 0 || position >= width) {
            throw new IllegalArgumentException("stripe position " + position + " is outside width " + width);
        }
    }

    /** One OSD holding every object. */
    public static StripeLayout single(int objectSizeBytes) {
        return new StripeLayout(objectSizeBytes, 1, 0);
    }

    public boolean holds(long objectNumber) {
        return Math.floorMod(objectNumber, (long) width) == position;
    }

    /** The object's index among this OSD's objects of the file (objects n, n + width, ... lie end to end here). */
    public long localObjectIndex(long objectNumber) {
        return objectNumber / width;
    }

    /** File offset of the first byte of an object. */
    public long objectStartOffset(long objectNumber) {
        return objectNumber * objectSizeBytes;
    }

    /**
     * Checks that [offset, offset + length) lies within object {@code objectNumber} and that this OSD holds that
     * object; the message names the bad value.
     */
    public void requireWithin(long objectNumber, int offset, long length) {
        if (objectNumber < 0 || offset < 0 || length < 0 || offset + length > objectSizeBytes) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") of object "
                    + objectNumber + " is outside the object size " + objectSizeBytes);
        }
        if (!holds(objectNumber)) {
            throw new IllegalArgumentException("object " + objectNumber + " belongs to stripe position "
                    + Math.floorMod(objectNumber, (long) width) + ", this OSD is position " + position + " of " + width);
        }
    }
}
