package org.xtreemfs.client.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.mrc.QosHeadroom;
import org.xtreemfs.interfaces.mrc.QosPlacement;
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

    /**
     * The lines that show an admitted placement: width and each OSD's share, then each stripe position's OSD
     * and address, marking OSDs that are unavailable now. No lines for a volume without reservation.
     */
    static List<String> placement(QosPlacement placement, Function<String, String> addressOf) {
        List<String> lines = new ArrayList<>();
        if (placement.getOsdUuidsCount() == 0) {
            return lines;
        }
        lines.add(String.format(Locale.ROOT, "%-17s %d OSD(s), each carrying %s", "placement:",
                placement.getOsdUuidsCount(), share(placement)));
        for (int position = 0; position < placement.getOsdUuidsCount(); position++) {
            String osdUuid = placement.getOsdUuids(position);
            boolean unavailable = placement.getUnavailableOsdUuidsList().contains(osdUuid);
            lines.add(String.format(Locale.ROOT, "    stripe position %d: OSD %s at %s%s", position, osdUuid,
                    addressOf.apply(osdUuid), unavailable ? " UNAVAILABLE: its share of the reservation is at risk" : ""));
        }
        return lines;
    }

    /** host:port of an OSD through the DIR, or why it is unknown. */
    static String osdAddress(Client client, String osdUuid) {
        try {
            var address = client.resolve(osdUuid);
            return address.getHostString() + ":" + address.getPort();
        } catch (XtreemFSException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    /** One OSD's share of a placement, in the dimensions the reservation has. */
    static String share(QosPlacement placement) {
        StringBuilder text = new StringBuilder("capacity ").append(Units.formatBytes(placement.getShareCapacityBytes()));
        if (placement.getShareThroughputBytesPerSecond() > 0) {
            text.append(" throughput ").append(Units.formatBytesPerSecond(placement.getShareThroughputBytesPerSecond()));
        }
        if (placement.getShareIops() > 0) {
            text.append(" iops ").append(placement.getShareIops());
        }
        return text.toString();
    }

    /** The largest reservation of one type admitted now, or why none is. */
    static String headroom(QosHeadroom headroom) {
        if (headroom.getCapacityBytesMax() == 0) {
            return "none (no available OSD of a matching type has room)";
        }
        StringBuilder text = new StringBuilder("capacity up to ").append(Units.formatBytes(headroom.getCapacityBytesMax()));
        if (headroom.getThroughputBytesPerSecondMax() > 0) {
            text.append(", throughput up to ").append(Units.formatBytesPerSecond(headroom.getThroughputBytesPerSecondMax()));
        }
        if (headroom.getIopsMax() > 0) {
            text.append(", iops up to ").append(headroom.getIopsMax());
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
