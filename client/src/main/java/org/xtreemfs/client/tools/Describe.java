package org.xtreemfs.client.tools;

import java.util.Locale;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.qos.model.Units;

/** How the tools print striping policies and reservations, in the units the options accept. */
final class Describe {
    private Describe() {}

    static String striping(StripingPolicy policy) {
        String type = policy.getTypeValue() == 0 ? "RAID0" : policy.getType().name();
        return type + " width " + policy.getWidth() + " object size "
                + Units.formatBytes(policy.getObjectSizeBytes());
    }

    static String reservation(QosReservation reservation) {
        if (reservation.getType() == QosType.QOS_TYPE_UNSPECIFIED) {
            return "none (best-effort)";
        }
        StringBuilder text = new StringBuilder(qosName(reservation.getType()));
        if (reservation.getCapacityBytes() > 0) {
            text.append(" capacity ").append(Units.formatBytes(reservation.getCapacityBytes()));
        }
        if (reservation.getThroughputBytesPerSecond() > 0) {
            text.append(" throughput ").append(Units.formatBytesPerSecond(reservation.getThroughputBytesPerSecond()));
        }
        if (reservation.getIops() > 0) {
            text.append(" iops ").append(reservation.getIops());
        }
        return text.toString();
    }

    /** The name the --qos option uses for a type ("best-effort" for BEST_EFFORT). */
    static String qosName(QosType type) {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static String mode(int mode) {
        return String.format(Locale.ROOT, "%04o", mode & 07777);
    }
}
