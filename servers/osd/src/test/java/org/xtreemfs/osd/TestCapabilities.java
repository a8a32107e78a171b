package org.xtreemfs.osd;

import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;

/** Signed credentials as the MRC would issue them, for tests that talk to an OSD directly. */
final class TestCapabilities {
    private TestCapabilities() {}

    /**
     * Read-write credentials for file {@code volume:file} on the single OSD {@code osdUuid} (width 1), valid for
     * 10 minutes, carrying a sequential share of {@code reservationBytesPerSecond} when it is positive.
     */
    static FileCredentials readWrite(String secret, String osdUuid, String volume, int file,
            long reservationBytesPerSecond, int objectSizeBytes) {
        XCap.Builder capability = XCap.newBuilder().setFileId(volume + ":" + file).setVolumeId(volume)
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setExpiresMs(System.currentTimeMillis() + 600_000);
        if (reservationBytesPerSecond > 0) {
            capability.setQosShare(QosShare.newBuilder().setType(QosType.SEQUENTIAL)
                    .setThroughputBytesPerSecond(reservationBytesPerSecond));
        }
        return FileCredentials.newBuilder().setXcap(new XCapSigner(secret).sign(capability.build()))
                .setXlocs(XLocSet.newBuilder().addReplicas(Replica.newBuilder().addOsdUuids(osdUuid)
                        .setStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(objectSizeBytes).setWidth(1))))
                .build();
    }
}
