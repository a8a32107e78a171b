package org.xtreemfs.osd.stages;

/**
 * Value of osd.qos.bufferedWritePacing: whether the fair policy paces unsynced writes by the device time they cost
 * ({@link org.xtreemfs.qos.wfq.BufferedWritePacing}, at the rate of this OSD's profile).
 */
public enum BufferedWritePacingMode {
    /** On when the profile describes this device (a calibration file or an emulated model), off otherwise. */
    AUTO,
    ON,
    OFF;

    /** Whether to pace, given whether the OSD's profile was measured or derived from its device. */
    public boolean paces(boolean profileDescribesDevice) {
        return this == ON || (this == AUTO && profileDescribesDevice);
    }
}
