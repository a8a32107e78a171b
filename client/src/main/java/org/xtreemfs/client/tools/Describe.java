package org.xtreemfs.client.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.mrc.QosHeadroom;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.interfaces.mrc.OsdVolumeFigures;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;

/**
 * How the tools print striping policies, reservations and resources, in the units the options accept. Every
 * size and rate a tool prints goes through {@link #size(long)} / {@link #rate(long)}, so all tools round alike.
 */
final class Describe {
    private static final String[] BINARY_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    /** A figure is shown in the largest unit in which it is at least this many units, so rounding loses < 2.5 %. */
    private static final long UNITS_SHOWN_MIN = 10;
    /** Fractions shown in quarters: a quarter of any unit from KiB up is a whole number of bytes. */
    private static final long QUARTERS_PER_UNIT = 4;

    private Describe() {}

    /**
     * Bytes for people, rounded down so that a figure shown as free or admissible is admissible when typed
     * back: exactly in a larger unit when one divides it ("2TiB", "1MiB"), otherwise in the largest binary unit
     * that holds at least 10 of it, to a quarter of that unit ("241.75GiB", "1945GiB" for 1.9 TiB, "512B").
     * The text parses back with the options' units to at most {@code bytes}.
     */
    static String size(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size cannot be negative, got " + bytes + " B");
        }
        int unitIndex = 0;
        while (unitIndex < BINARY_UNITS.length - 1 && bytes >> (10 * (unitIndex + 1)) >= UNITS_SHOWN_MIN) {
            unitIndex++;
        }
        for (int exactIndex = BINARY_UNITS.length - 1; exactIndex > unitIndex; exactIndex--) {
            if (bytes > 0 && bytes % (1L << (10 * exactIndex)) == 0) {
                return (bytes >> (10 * exactIndex)) + BINARY_UNITS[exactIndex];
            }
        }
        long unitBytes = 1L << (10 * unitIndex);
        long whole = bytes / unitBytes;
        if (unitIndex == 0) {
            return whole + BINARY_UNITS[0];
        }
        long quarters = (bytes % unitBytes) / (unitBytes / QUARTERS_PER_UNIT);
        String fraction = switch ((int) quarters) {
            case 1 -> ".25";
            case 2 -> ".5";
            case 3 -> ".75";
            default -> "";
        };
        return whole + fraction + BINARY_UNITS[unitIndex];
    }

    /** A rate in bytes per second, rounded down like {@link #size(long)}: "32.5MiB/s". */
    static String rate(long bytesPerSecond) {
        return size(bytesPerSecond) + "/s";
    }

    static String striping(StripingPolicy policy) {
        String type = policy.getTypeValue() == 0 ? "RAID0" : policy.getType().name();
        return type + " width " + policy.getWidth() + " object size "
                + size(policy.getObjectSizeBytes());
    }

    /** "1 copy (not replicated)" or "chain of N replicas (writes enter at the head), read routing pattern". */
    static String replication(ReplicationPolicy policy) {
        int replicas = ReplicationRules.replicas(policy);
        return replicas == 1 ? "1 copy (not replicated)"
                : "chain of " + replicas + " replicas (writes enter at the head), read routing "
                        + ReplicationRules.readRoutingName(policy.getReadRouting());
    }

    static String reservation(QosReservation reservation) {
        if (reservation.getType() == QosType.QOS_TYPE_UNSPECIFIED) {
            return "none (best-effort)";
        }
        StringBuilder text = new StringBuilder(qosName(reservation.getType()));
        if (reservation.getCapacityBytes() > 0) {
            text.append(" capacity ").append(size(reservation.getCapacityBytes()));
        }
        if (reservation.getThroughputBytesPerSecond() > 0) {
            text.append(" throughput ").append(rate(reservation.getThroughputBytesPerSecond()));
        }
        if (reservation.getIops() > 0) {
            text.append(" iops ").append(reservation.getIops());
        }
        if (reservation.getWeight() > 1) {
            text.append(" weight ").append(reservation.getWeight());
        }
        if (reservation.getLimitThroughputBytesPerSecond() > 0) {
            text.append(" limit ").append(rate(reservation.getLimitThroughputBytesPerSecond()));
        }
        if (reservation.getLimitIops() > 0) {
            text.append(" limit ").append(reservation.getLimitIops()).append(" iops");
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
    /**
     * A volume's attainment as its MRC sums it: the summed line, then one line per OSD (its heartbeat's age
     * measured against {@code nowMs}), then the placed OSDs that report nothing. Achieved figures are rates
     * in the OSDs' cost unit: bytes/s on sequential and best-effort OSDs, 4 KiB I/Os per second on random ones.
     */
    static List<String> attainment(VolumeAttainment volume, long nowMs) {
        List<String> lines = new ArrayList<>();
        if (volume.getOsdsCount() == 0) {
            lines.add(String.format(Locale.ROOT, "%-17s %s", "attainment:", "no OSD reports this volume (no I/O in"
                    + " the last 10 s, or no OSD heartbeat since)"));
        } else {
            String summed = achieved(volume.getCostUnit(), volume.getAchievedCostPerSecond(),
                    volume.getReservedCostPerSecond()) + ", queue " + volume.getQueueDepthRequests()
                    + (volume.hasLatencyP99Ms() ? String.format(Locale.ROOT, ", p99 %.1f ms (worst OSD)",
                            volume.getLatencyP99Ms()) : "")
                    + (volume.hasAttainment() ? String.format(Locale.ROOT, ", windows met %.1f %% (worst OSD)",
                            volume.getAttainment() * 100) : "");
            lines.add(String.format(Locale.ROOT, "%-17s %s", "attainment:", summed));
            for (OsdVolumeFigures osd : volume.getOsdsList()) {
                VolumeAttainmentReport figures = osd.getFigures();
                StringBuilder line = new StringBuilder("  OSD ").append(osd.getOsdUuid()).append(": ")
                        .append(achieved(volume.getCostUnit(), figures.getAchievedCostPerSecond(),
                                figures.getReservedCostPerSecond()))
                        .append(", queue ").append(figures.getQueueDepthRequests());
                if (figures.hasLatencyP99Ms()) {
                    line.append(String.format(Locale.ROOT, ", p99 %.1f ms", figures.getLatencyP99Ms()));
                }
                if (figures.getWindowsWithDemand() > 0) {
                    line.append(String.format(Locale.ROOT, ", windows met %d of %d (%.1f %%)",
                            figures.getWindowsMet(), figures.getWindowsWithDemand(),
                            100.0 * figures.getWindowsMet() / figures.getWindowsWithDemand()));
                }
                line.append(String.format(Locale.ROOT, ", heartbeat %.1f s ago",
                        Math.max(0, nowMs - osd.getLastHeartbeatMs()) / 1000.0));
                if (!osd.getAvailable()) {
                    line.append(" (unavailable: not summed)");
                }
                lines.add(line.toString());
            }
        }
        if (volume.getPlacedOsdsNotReportingCount() > 0) {
            lines.add("  placed OSDs reporting nothing for it: " + String.join(", ",
                    volume.getPlacedOsdsNotReportingList()));
        }
        return lines;
    }

    /**
     * "achieved 1.5MiB/s of 2MiB/s reserved (75 %)"; on random OSDs (cost unit "4KiB-io", the OSDs' name)
     * "achieved 120 IOPS of 100 IOPS reserved (120 %)"; without a reservation "achieved ... (no reservation)".
     */
    private static String achieved(String costUnit, double achievedCostPerSecond, long reservedCostPerSecond) {
        Function<Double, String> unit = switch (costUnit) {
            case "4KiB-io" -> figure -> String.format(Locale.ROOT, "%.0f IOPS", figure);
            case "bytes" -> figure -> rate(figure.longValue());
            default -> figure -> String.format(Locale.ROOT, "%.0f %s/s", figure, costUnit);
        };
        String achieved = unit.apply(achievedCostPerSecond);
        if (reservedCostPerSecond == 0) {
            return "achieved " + achieved + " (no reservation)";
        }
        String reserved = unit.apply((double) reservedCostPerSecond);
        return String.format(Locale.ROOT, "achieved %s of %s reserved (%.0f %%)", achieved, reserved,
                100.0 * achievedCostPerSecond / reservedCostPerSecond);
    }

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
        StringBuilder text = new StringBuilder("capacity ").append(size(placement.getShareCapacityBytes()));
        if (placement.getShareThroughputBytesPerSecond() > 0) {
            text.append(" throughput ").append(rate(placement.getShareThroughputBytesPerSecond()));
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
        StringBuilder text = new StringBuilder("capacity up to ").append(size(headroom.getCapacityBytesMax()));
        if (headroom.getThroughputBytesPerSecondMax() > 0) {
            text.append(", throughput up to ").append(rate(headroom.getThroughputBytesPerSecondMax()));
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
