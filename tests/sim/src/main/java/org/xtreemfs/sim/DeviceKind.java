package org.xtreemfs.sim;

import org.xtreemfs.qos.device.SsdModel;
import org.xtreemfs.qos.device.WriteBackCache;

/**
 * Device classes a scenario can name ({@code device=hdd|ssd}), with the library's built-in calibration: the HDD
 * behind the host's write-back, as an OSD writes to it (a scenario's synced writes go straight to the media).
 */
enum DeviceKind {
    HDD,
    SSD;

    Device<?> newDevice() {
        return this == HDD ? new Device<>(WriteBackCache.osdHdd7200()) : new Device<>(SsdModel.sata());
    }
}
