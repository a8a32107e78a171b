package org.xtreemfs.qos.wfq;

import java.util.Objects;
import org.xtreemfs.qos.model.ReservationType;

/**
 * One OSD's share of a volume's reservation, as the signed capability carries it (XCap.qos_share): the
 * volume's type and this OSD's part of its throughput (SEQUENTIAL) or 4 KiB IOPS (RANDOM). Negative figures
 * are treated as 0; a reserved type with a zero figure is served as best-effort (see {@link ShareRule}).
 */
public record VolumeShare(ReservationType type, long throughputBytesPerSecond, long iops) {
    /** A volume without a reservation, or one this OSD knows nothing about: best-effort. */
    public static final VolumeShare BEST_EFFORT = new VolumeShare(ReservationType.BEST_EFFORT, 0, 0);

    public VolumeShare {
        Objects.requireNonNull(type, "type");
        throughputBytesPerSecond = Math.max(0, throughputBytesPerSecond);
        iops = Math.max(0, iops);
    }

    public static VolumeShare sequential(long throughputBytesPerSecond) {
        return new VolumeShare(ReservationType.SEQUENTIAL, throughputBytesPerSecond, 0);
    }

    public static VolumeShare random(long iops) {
        return new VolumeShare(ReservationType.RANDOM, 0, iops);
    }

    public static VolumeShare cold() {
        return new VolumeShare(ReservationType.COLD, 0, 0);
    }
}
