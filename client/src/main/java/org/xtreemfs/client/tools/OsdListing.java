package org.xtreemfs.client.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.OsdProfile;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.qos.model.Units;

/**
 * The lines of {@code lsfs.xtreemfs --osds}: every OSD the MRC's reservation ledger or the DIR knows, with its
 * usage type, device class, profile summary, availability, and what is reserved and free on it. The ledger is
 * the authority for profiles, reservations and limits (what admission uses); the DIR adds addresses, disk
 * figures and the OSDs the ledger cannot admit against. A pure function of the answers, so it is unit-tested.
 */
final class OsdListing {
    private OsdListing() {}

    /**
     * @param status the MRC's reservation ledger (MRC_QOS_STATUS)
     * @param dirOsds the OSDs the DIR knows, dead ones included
     * @param volumeNames volume id to name, for the volumes placed on each OSD (ids without a name are shown bare)
     * @param addressOf host:port of an OSD uuid, or why it is unknown
     */
    static List<String> lines(QosStatus status, List<Service> dirOsds, Map<String, String> volumeNames,
            Function<String, String> addressOf) {
        Map<String, OsdQosState> ledger = new TreeMap<>();
        for (OsdQosState osd : status.getOsdsList()) {
            ledger.put(osd.getUuid(), osd);
        }
        Map<String, Service> dir = new TreeMap<>();
        for (Service service : dirOsds) {
            dir.put(service.getUuid(), service);
        }
        TreeMap<String, Boolean> uuids = new TreeMap<>();
        ledger.keySet().forEach(uuid -> uuids.put(uuid, true));
        dir.keySet().forEach(uuid -> uuids.put(uuid, true));
        List<String> lines = new ArrayList<>();
        if (uuids.isEmpty()) {
            lines.add("no OSDs registered");
            return lines;
        }
        for (String uuid : uuids.keySet()) {
            OsdQosState state = ledger.get(uuid);
            Service service = dir.get(uuid);
            boolean available = state != null ? state.getAvailable()
                    : service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE;
            int volumeCount = state == null ? 0 : state.getVolumeIdsCount();
            lines.add("OSD " + uuid + " at " + addressOf.apply(uuid) + ": " + (available ? "available"
                    : "UNAVAILABLE (not heartbeating)" + (volumeCount == 0 ? ""
                            : "; the reservations of its " + volumeCount + " volume(s) are at risk, kept for its return")));
            if (state == null) {
                var attributes = service.getOsdAttributes();
                lines.add(String.format(Locale.ROOT, "    type %s, device %s; not admitted against: %s",
                        usageName(attributes.getUsageType()), deviceName(attributes.getDeviceClass()),
                        attributes.hasProfile() ? "the MRC refuses its profile" : "it registers no performance profile"));
            } else {
                lines.add("    " + profileSummary(state));
                lines.add(String.format(Locale.ROOT, "    %-9s %s", "reserved:", figures(state.getProfile(),
                        state.getReservedCapacityBytes(), state.getReservedThroughputBytesPerSecond(),
                        state.getReservedIops())));
                lines.add(String.format(Locale.ROOT, "    %-9s %s%s", "free:", figures(state.getProfile(),
                        free(state.getLimitCapacityBytes(), state.getReservedCapacityBytes()),
                        free(state.getLimitThroughputBytesPerSecond(), state.getReservedThroughputBytesPerSecond()),
                        free(state.getLimitIops(), state.getReservedIops())),
                        isSequential(state.getProfile()) ? " (at its " + state.getSequentialStreams()
                                + " stream(s); a new sequential volume adds one, which may lower the throughput)" : ""));
            }
            if (service != null && service.getOsdAttributes().getTotalBytes() > 0) {
                lines.add(String.format(Locale.ROOT, "    %-9s %s free of %s in its object folder", "disk:",
                        Describe.size(service.getOsdAttributes().getFreeBytes()),
                        Describe.size(service.getOsdAttributes().getTotalBytes())));
            }
            if (volumeCount > 0) {
                List<String> volumes = new ArrayList<>();
                for (String volumeId : state.getVolumeIdsList()) {
                    String name = volumeNames.get(volumeId);
                    volumes.add(name == null ? volumeId : name + " (" + volumeId + ")");
                }
                lines.add(String.format(Locale.ROOT, "    %-9s %s", "volumes:", String.join(", ", volumes)));
            }
            if (state != null && !state.getWarning().isEmpty()) {
                lines.add(String.format(Locale.ROOT, "    %-9s %s", "warning:", state.getWarning()));
            }
        }
        return lines;
    }

    /**
     * Usage type, device class and profile: where it comes from, sequential throughput at 1 stream and at the
     * OSD's current stream count (what admission promises against), 4 KiB IOPS and capacity.
     */
    private static String profileSummary(OsdQosState state) {
        OsdProfile profile = state.getProfile();
        StringBuilder text = new StringBuilder("type ").append(usageName(profile.getUsageType()))
                .append(", device ").append(deviceName(profile.getDeviceClass()))
                .append(", profile ").append(profile.getSource().isEmpty() ? "(source unknown)" : profile.getSource())
                .append(": sequential ");
        text.append(profile.getSequentialBytesPerSecondCount() == 0 ? "unknown"
                : Describe.rate(profile.getSequentialBytesPerSecond(0)) + " at 1 stream");
        int streams = state.getSequentialStreams();
        if (streams > 1) {
            text.append(", ").append(Describe.rate(state.getLimitThroughputBytesPerSecond())).append(" at its ")
                    .append(streams).append(" streams");
        }
        return text.append(", random ").append(profile.getRandomIops()).append(" IOPS, capacity ")
                .append(Describe.size(profile.getCapacityBytes())).toString();
    }

    /** Capacity always; throughput on sequential OSDs, IOPS on random ones (the dimensions they serve). */
    private static String figures(OsdProfile profile, long capacityBytes, long throughputBytesPerSecond, long iops) {
        StringBuilder text = new StringBuilder("capacity ").append(Describe.size(capacityBytes));
        if (isSequential(profile)) {
            text.append(", throughput ").append(Describe.rate(throughputBytesPerSecond));
        }
        if (profile.getUsageType() == org.xtreemfs.interfaces.common.OsdUsageType.OSD_RANDOM) {
            text.append(", iops ").append(iops);
        }
        return text.toString();
    }

    private static boolean isSequential(OsdProfile profile) {
        return profile.getUsageType() == org.xtreemfs.interfaces.common.OsdUsageType.OSD_SEQUENTIAL;
    }

    private static long free(long limit, long reserved) {
        return Math.max(0, limit - reserved);
    }

    /** The name the tools and configuration use ("best-effort", "hdd"), through the one QoS codec. */
    private static String usageName(org.xtreemfs.interfaces.common.OsdUsageType wire) {
        return wire == org.xtreemfs.interfaces.common.OsdUsageType.UNRECOGNIZED ? "unknown"
                : Units.displayName(QosWire.usageType(wire));
    }

    private static String deviceName(org.xtreemfs.interfaces.common.DeviceClass wire) {
        return wire == org.xtreemfs.interfaces.common.DeviceClass.HDD || wire == org.xtreemfs.interfaces.common.DeviceClass.SSD
                ? Units.displayName(QosWire.deviceClass(wire)) : "unknown";
    }
}
