package org.xtreemfs.mrc.placement;

import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.interfaces.common.KeyValuePair;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.Service;

/**
 * An online OSD as placement sees it: a snapshot of what the OSD last reported to the DIR. A total of 0
 * bytes means the OSD has not reported its space yet; an empty host means it did not say which host it runs on
 * (every such OSD then counts as a host of its own).
 */
public record OsdCandidate(String uuid, OsdUsageType usageType, long freeBytes, long totalBytes,
        int loadPercent, String host) {

    public OsdCandidate(String uuid, OsdUsageType usageType, long freeBytes, long totalBytes, int loadPercent) {
        this(uuid, usageType, freeBytes, totalBytes, loadPercent, "");
    }

    public static OsdCandidate of(Service service) {
        String host = service.getStaticAttributesList().stream()
                .filter(attribute -> attribute.getKey().equals(ReplicationRules.HOST_ATTRIBUTE))
                .map(KeyValuePair::getValue).findFirst().orElse("");
        return new OsdCandidate(service.getUuid(), service.getOsdAttributes().getUsageType(),
                service.getOsdAttributes().getFreeBytes(), service.getOsdAttributes().getTotalBytes(),
                service.getOsdAttributes().getLoadPercent(), host);
    }

    /** The host replicas are spread over: the reported one, or the OSD itself when it reported none. */
    public String hostKey() {
        return host.isEmpty() ? "osd:" + uuid : host;
    }

    public boolean reportsSpace() {
        return totalBytes > 0;
    }

    /** Whether files of volumes without a reservation may go here (an OSD that declares no type is best-effort). */
    public boolean servesBestEffort() {
        return usageType == OsdUsageType.OSD_BEST_EFFORT || usageType == OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED;
    }
}
