package org.xtreemfs.foundation.striping;

import java.util.Optional;
import org.xtreemfs.foundation.rpc.FrameLimits;

/**
 * What a volume's RAID0 striping policy may say. The largest object size is derived from the RPC frame
 * limit, not chosen: read-ahead, replication and an OSD's read reply move a whole object in one record's
 * data segment, so a larger object could be created and then never read or written.
 */
public final class StripingRules {
    public static final int OBJECT_SIZE_BYTES_DEFAULT = 128 * 1024;
    /** Objects are whole 4 KiB blocks: the unit of random I/O cost and of O_DIRECT alignment. */
    public static final int OBJECT_SIZE_BYTES_MIN = 4096;
    public static final int OBJECT_SIZE_BYTES_MAX = FrameLimits.DEFAULT.dataBytesMax();
    public static final int STRIPE_WIDTH_MAX = 128;

    private StripingRules() {}

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
