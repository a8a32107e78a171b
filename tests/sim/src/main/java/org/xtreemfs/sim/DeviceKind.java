package org.xtreemfs.sim;

import org.xtreemfs.qos.device.HddModel;
import org.xtreemfs.qos.device.SsdModel;

/** Device classes a scenario can name ({@code device=hdd|ssd}), with the library's built-in calibration. */
enum DeviceKind {
    HDD,
    SSD;

    Device<?> newDevice() {
        return this == HDD ? new Device<>(HddModel.desktop7200Rpm()) : new Device<>(SsdModel.sata());
    }
}
