package org.xtreemfs.foundation.striping;

import java.util.Optional;
import org.xtreemfs.foundation.rpc.FrameLimits;

/**
 * What a volume's RAID0 striping policy may say. The largest object size is derived from the RPC frame
 * limit, not chosen: read-ahead, replication and an OSD's read reply move a whole object in one record's
 * data segment, so a larger object could be created and then never read or written.
 */
public final class StripingRules {
    /**
     * The object size of a new volume without a reservation and without replicas when its create request leaves it
     * unset. One object is one file on an OSD: with 128 KiB objects a sequential writer made the OSD create, write
     * and force 8,192 files per GiB, and that kernel work was half of the OSD's CPU per MiB (issue 10). A 4 KiB write
     * or read of a larger object is still one 4 KiB pwrite or pread (object files are sparse, no read-modify-write).
     * Measured (tests/bench/fuse/README.md, A/B of the two sizes on one build): random 4 KiB reads cost the same, but
     * random 4 KiB writes cost the OSD about 40 % more CPU each, not explained yet; --object-size at mkfs chooses.
     */
    public static final int OBJECT_SIZE_BYTES_DEFAULT = 1024 * 1024;
    /**
     * The object size of a new volume with a reservation or with replicas when its create request leaves it unset.
     * Reserved: the unit the OSD's calibration measures the device in (qos CalibrationPattern, checked by a test in
     * the OSD), with which the admitted figures and the fair queue's per-request granularity were shown to hold
     * (issue 9). Replicated: a chain's tail keeps the log-structured layout, whose index stores each object's extent
     * list as one record rewritten on every write of the object, so under random 4 KiB writes that record grows with
     * the object size (up to 32 extents at 128 KiB, 256 at 1 MiB).
     */
    public static final int RESERVED_OR_REPLICATED_DEFAULT_OBJECT_SIZE_BYTES =
            org.xtreemfs.qos.device.CalibrationPattern.OBJECT_SIZE_BYTES;
    /**
     * What an object size of 0 in a file's XLoc means. The MRC stores every volume's policy filled in and copies it
     * into each new file's XLoc, so only a hand-made XLoc carries 0; its meaning stays the size files had before the
     * volume defaults differed, so no stored layout changes.
     */
    public static final int UNSET_OBJECT_SIZE_BYTES = 128 * 1024;
    /** Objects are whole 4 KiB blocks: the unit of random I/O cost and of O_DIRECT alignment. */
    public static final int OBJECT_SIZE_BYTES_MIN = 4096;
    public static final int OBJECT_SIZE_BYTES_MAX = FrameLimits.DEFAULT.dataBytesMax();
    public static final int STRIPE_WIDTH_MAX = 128;

    private StripingRules() {}

    /** The object size a new volume gets when its create request leaves it unset. */
    public static int defaultObjectSizeBytes(boolean reserved, boolean replicated) {
        return reserved || replicated ? RESERVED_OR_REPLICATED_DEFAULT_OBJECT_SIZE_BYTES : OBJECT_SIZE_BYTES_DEFAULT;
    }

    /**
     * Why an object size is refused (outside 4 KiB..16 MiB, or not a multiple of 4 KiB), as a phrase the
     * caller appends to the name and value it shows; empty when it is valid.
     */
    public static Optional<String> objectSizeProblem(long objectSizeBytes) {
        if (objectSizeBytes < OBJECT_SIZE_BYTES_MIN || objectSizeBytes > OBJECT_SIZE_BYTES_MAX
                || objectSizeBytes % OBJECT_SIZE_BYTES_MIN != 0) {
            return Optional.of("is not a valid object size: it must be a multiple of 4KiB from 4KiB to "
                    + (OBJECT_SIZE_BYTES_MAX >> 20) + "MiB (the data segment of one RPC record)");
        }
        return Optional.empty();
    }

    /** Why a stripe width is refused (outside 1..{@value #STRIPE_WIDTH_MAX}); empty when it is valid. */
    public static Optional<String> stripeWidthProblem(long width) {
        if (width < 1 || width > STRIPE_WIDTH_MAX) {
            return Optional.of("is not a valid stripe width: it must be between 1 and " + STRIPE_WIDTH_MAX);
        }
        return Optional.empty();
    }
}
