package org.xtreemfs.qos.device;

/**
 * Where an OSD's data lies on an emulated device: the one mapping of (file, object, offset) to device
 * offsets, used by the OSD's emulated disks and by the calibration pattern's derivation alike, so both see
 * the same offsets.
 *
 * <p>The device is cut into regions of {@link #REGION_BYTES}; a file owns the region its id hashes to
 * (64-bit FNV-1a over the id's UTF-16 code units, a fixed function, so a restart maps every file to the same place), and its
 * objects on this OSD lie back to back in that region in the order of their local index (object number
 * divided by the stripe width). Hence one file read or written in order is sequential on the device, and two
 * files are a seek apart, on average a third of the device as for files spread by a file system's allocator.
 * Invariant: a request of at most one region lies wholly inside its file's region; a file larger than its
 * region wraps around inside it (a real file system would extend it elsewhere: one seek per region's worth).
 * Two files may hash to the same region; they then overlap on the device, which costs a model nothing but
 * accuracy, and the calibration files are chosen so that theirs do not.
 */
public final class DeviceLayout {
    /** Size of one file's region: room for 8192 objects of the default 128 KiB. */
    public static final long REGION_BYTES = 1L << 30;

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private DeviceLayout() {}

    /** First byte of the region of {@code fileId} on a device of {@code capacityBytes}. */
    public static long regionStartBytes(String fileId, long capacityBytes) {
        long regionBytes = regionBytes(capacityBytes);
        long regionCount = capacityBytes / regionBytes;
        return Long.remainderUnsigned(hash(fileId), regionCount) * regionBytes;
    }

    /**
     * The device request for {@code lengthBytes} at {@code offsetInObjectBytes} of the object with local index
     * {@code localObjectIndex} (object number / stripe width) of {@code fileId}.
     */
    public static IoRequest request(IoKind kind, String fileId, long localObjectIndex, long objectSizeBytes,
            long offsetInObjectBytes, long lengthBytes, long capacityBytes) {
        long regionBytes = regionBytes(capacityBytes);
        if (lengthBytes <= 0 || lengthBytes > regionBytes) {
            throw new IllegalArgumentException("lengthBytes must be in (0, " + regionBytes + "], was " + lengthBytes);
        }
        long positionBytes = Math.floorMod(localObjectIndex * objectSizeBytes + offsetInObjectBytes, regionBytes);
        if (positionBytes + lengthBytes > regionBytes) {
            positionBytes = regionBytes - lengthBytes; // the tail of a wrapped file: keep it inside the region
        }
        return new IoRequest(regionStartBytes(fileId, capacityBytes) + positionBytes, lengthBytes, kind);
    }

    /** Bytes of one file's region on a device of {@code capacityBytes} (an fsync of the file flushes that range). */
    public static long regionBytes(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacityBytes must be > 0, was " + capacityBytes);
        }
        return Math.min(REGION_BYTES, capacityBytes);
    }

    private static long hash(String fileId) {
        long hash = FNV_OFFSET_BASIS;
        for (int index = 0; index < fileId.length(); index++) {
            hash = (hash ^ fileId.charAt(index)) * FNV_PRIME;
        }
        return hash;
    }
}
