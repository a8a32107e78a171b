package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Units;

class OsdListingTest {
    private static OsdQosState ledgerEntry(String uuid, OsdProfile profile, boolean available, int streams,
            long reservedCapacityBytes, long reservedThroughputBytesPerSecond, String... volumeIds) {
        return OsdQosState.newBuilder().setUuid(uuid).setAvailable(available)
                .setProfile(QosWire.toWire(profile).setSource("model test"))
                .setReservedCapacityBytes(reservedCapacityBytes)
                .setReservedThroughputBytesPerSecond(reservedThroughputBytesPerSecond)
                .setSequentialStreams(streams).setLimitCapacityBytes(profile.capacityBytes())
                .setLimitThroughputBytesPerSecond(profile.limits(streams).throughputBytesPerSecond())
                .setLimitIops(profile.randomIops()).addAllVolumeIds(List.of(volumeIds)).build();
    }

    // Each OSD shows its type, device, profile source and figures, what is reserved and what is free (limit
    // minus reserved, rounded down); an unavailable one says its reservations are at risk, not dropped; an OSD
    // only the DIR knows is listed as not admitted against.
    @Test
    void listsTypeProfileReservedFreeAndAvailability() {
        OsdProfile sequential = OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL);
        long reservedThroughput = sequential.limits(2).throughputBytesPerSecond() / 3;
        QosStatus status = QosStatus.newBuilder()
                .addOsds(ledgerEntry("seq-1", sequential, true, 2, Units.gibibytes(100), reservedThroughput, "v1", "v2"))
                .addOsds(ledgerEntry("seq-2", sequential, false, 1, Units.gibibytes(1), 1000, "v3")).build();
        Service unprofiled = Service.newBuilder().setUuid("plain").setType(ServiceType.SERVICE_TYPE_OSD)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder().setFreeBytes(253726324L * 1024)
                        .setTotalBytes(Units.gibibytes(500))).build();
        List<String> lines = OsdListing.lines(status, List.of(unprofiled), Map.of("v1", "alpha"), uuid -> "host:" + uuid);
        String text = String.join("\n", lines);
        long freeThroughput = sequential.limits(2).throughputBytesPerSecond() - reservedThroughput;
        assertThat(text)
                .contains("OSD seq-1 at host:seq-1: available")
                .contains("type sequential, device hdd, profile model test: sequential "
                        + Describe.rate(sequential.limits(1).throughputBytesPerSecond()) + " at 1 stream, "
                        + Describe.rate(sequential.limits(2).throughputBytesPerSecond()) + " at its 2 streams")
                .contains("reserved: capacity 100GiB, throughput " + Describe.rate(reservedThroughput))
                .contains("free:     capacity " + Describe.size(sequential.capacityBytes() - Units.gibibytes(100))
                        + ", throughput " + Describe.rate(freeThroughput))
                .contains("volumes:  alpha (v1), v2")
                .contains("OSD seq-2 at host:seq-2: UNAVAILABLE").contains("its 1 volume(s) are at risk")
                .contains("OSD plain at host:plain: available")
                .contains("not admitted against: it registers no performance profile")
                .contains("disk:     241.75GiB free of 500GiB");
        assertThat(text).doesNotContain("253726324KiB");
        assertThat(lines.get(0)).startsWith("OSD plain");
    }

    @Test
    void saysWhenThereAreNoOsds() {
        assertThat(OsdListing.lines(QosStatus.getDefaultInstance(), List.of(), Map.of(), uuid -> "?"))
                .containsExactly("no OSDs registered");
    }
}
