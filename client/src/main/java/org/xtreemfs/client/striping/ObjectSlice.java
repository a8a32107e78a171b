package org.xtreemfs.client.striping;

/**
 * The part of a byte range that falls into one object: {@code lengthBytes} bytes at {@code offsetInObject}
 * of object {@code objectNumber}, which correspond to {@code offsetInRequest} bytes into the caller's range.
 */
public record ObjectSlice(long objectNumber, int offsetInObject, int lengthBytes, int offsetInRequest) {
    public ObjectSlice {
        if (objectNumber < 0 || offsetInObject < 0 || lengthBytes <= 0 || offsetInRequest < 0) {
            throw new IllegalArgumentException("invalid slice: object " + objectNumber + " offset " + offsetInObject
                    + " length " + lengthBytes + " request offset " + offsetInRequest);
        }
    }
}
