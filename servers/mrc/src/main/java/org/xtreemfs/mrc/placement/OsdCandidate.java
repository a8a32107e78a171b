package org.xtreemfs.mrc.placement;

import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.Service;

/**
 * An online OSD as placement sees it: a snapshot of what the OSD last reported to the DIR. A total of 0
 * bytes means the OSD has not reported its space yet.
 */
public record OsdCandidate(String uuid, OsdUsageType usageType, long freeBytes, long totalBytes,
        int loadPercent) {

    public static OsdCandidate of(Service service) {
        return new OsdCandidate(service.getUuid(), service.getOsdAttributes().getUsageType(),
                service.getOsdAttributes().getFreeBytes(), service.getOsdAttributes().getTotalBytes(),
                service.getOsdAttributes().getLoadPercent());
    }

    public boolean reportsSpace() {
        return totalBytes > 0;
    }

    /** Whether files of volumes without a reservation may go here (an OSD that declares no type is best-effort). */
    public boolean servesBestEffort() {
        return usageType == OsdUsageType.OSD_BEST_EFFORT || usageType == OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED;
    }
}
