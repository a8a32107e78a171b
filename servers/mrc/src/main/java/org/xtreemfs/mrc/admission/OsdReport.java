package org.xtreemfs.mrc.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.OsdVolumeAttainment;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.qos.model.OsdProfile;

/**
 * One OSD as the DIR reported it when an admission was prepared: the nondeterministic input of a decision.
 *
 * @param profile empty when the OSD registers none or one the model refuses ({@code problem} says which)
 * @param wireProfile the profile as registered, with its source and measurement time, for the ledger's record
 * @param lastHeartbeatMs when the DIR last heard from the OSD (epoch ms)
 * @param volumeAttainment what the OSD's QoS accounting showed per volume at that heartbeat (not used by
 *     admission; the MRC sums it per volume: {@code mrc.registry.VolumeAttainmentSum})
 */
public record OsdReport(String uuid, boolean available, Optional<OsdProfile> profile,
        org.xtreemfs.interfaces.common.OsdProfile wireProfile, String problem, long lastHeartbeatMs,
        OsdVolumeAttainment volumeAttainment) {

    public static List<OsdReport> of(List<Service> services) {
        List<OsdReport> reports = new ArrayList<>();
        for (Service service : services) {
            if (service.getType() == ServiceType.SERVICE_TYPE_OSD) {
                reports.add(of(service));
            }
        }
        return reports;
    }

    static OsdReport of(Service service) {
        boolean available = service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE;
        long heartbeatMs = service.getLastHeartbeatMs();
        OsdVolumeAttainment attainment = service.getOsdAttributes().getVolumeAttainment();
        if (!service.getOsdAttributes().hasProfile()) {
            return new OsdReport(service.getUuid(), available, Optional.empty(),
                    org.xtreemfs.interfaces.common.OsdProfile.getDefaultInstance(),
                    "registers no performance profile", heartbeatMs, attainment);
        }
        org.xtreemfs.interfaces.common.OsdProfile wire = service.getOsdAttributes().getProfile();
        try {
            return new OsdReport(service.getUuid(), available, Optional.of(QosWire.profile(wire)), wire, "",
                    heartbeatMs, attainment);
        } catch (IllegalArgumentException refused) {
            return new OsdReport(service.getUuid(), available, Optional.empty(), wire,
                    "registers an invalid profile: " + refused.getMessage(), heartbeatMs, attainment);
        }
    }
}
