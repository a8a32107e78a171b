package org.xtreemfs.osd.storage;

import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.DeviceModel;
import org.xtreemfs.qos.device.PatternDriver;
import org.xtreemfs.qos.device.SsdModel;
import org.xtreemfs.qos.device.WriteBackCache;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;

/**
 * The values of {@code osd.device.emulation}: which qos.device model the OSD's storage behaves like. The
 * emulated model implies the device class, and the OSD registers the profile derived from the model with the
 * calibration pattern, which is what a calibration of the emulated OSD measures.
 */
public enum DeviceEmulation {
    /** The real disk. */
    NONE,
    /**
     * A 7200 rpm desktop HDD behind the host's write-back ({@link WriteBackCache#osdHdd7200()}: unsynced writes are
     * acknowledged from memory and written back in sorted batches, synced writes and fsyncs wait for the media)
     * slowed down by {@value #HDD_SLOWDOWN_FACTOR}: a lone sequential stream on the full model completes a 128 KiB request every 1.2 ms, and one Java thread
     * on this project's shared 2-core machines (load averages of 10 and more while other builds run) turned
     * around in time for only 560 to 630 of the model's 810 to 850 requests per second; at half speed the host
     * keeps up and the calibration measures the model. Seeks, rotation, zones and read-ahead keep their shape;
     * the built-in HDD profile (OsdProfiles.hdd7200) stays the full model's.
     */
    HDD7200,
    /**
     * A SATA SSD slowed down by {@value #SSD_SLOWDOWN_FACTOR} ({@link SsdModel#sata()}, every duration times the
     * factor): the full model's 57,000 4 KiB IOPS need one emulated wait per 18 µs, more than Java threads
     * parking and waking on this project's shared 2-core machines deliver; at an eighth of the speed the
     * emulation holds its model within the calibration's ±15 %. The shape (flat throughput, no seeks, IOPS far
     * above an HDD's) is the SSD's; the built-in SSD profile (OsdProfiles.sataSsd) stays the full model's.
     */
    SSD;

    /** How much slower the emulated HDD is than {@link WriteBackCache#osdHdd7200()}. */
    public static final double HDD_SLOWDOWN_FACTOR = 2;

    /** How much slower the emulated SSD is than {@link SsdModel#sata()}. */
    public static final double SSD_SLOWDOWN_FACTOR = 8;

    /** The emulated model; only for emulations other than {@link #NONE}. */
    public DeviceModel<?> model() {
        return switch (this) {
            case NONE -> throw new IllegalStateException("the real disk has no model");
            case HDD7200 -> WriteBackCache.osdHdd7200().slowedBy(HDD_SLOWDOWN_FACTOR);
            case SSD -> SsdModel.sata().slowedBy(SSD_SLOWDOWN_FACTOR);
        };
    }

    public boolean emulated() {
        return this != NONE;
    }

    /** The device class the emulated model implies. */
    public DeviceClass deviceClass() {
        return switch (this) {
            case NONE -> throw new IllegalStateException("the real disk's class is configured, not implied");
            case HDD7200 -> DeviceClass.HDD;
            case SSD -> DeviceClass.SSD;
        };
    }

    /** The value as written in the configuration ({@code hdd7200}). */
    public String configName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * What the emulated model delivers under the standard calibration pattern, for {@code usageType}, at the
     * model's capacity.
     */
    public OsdProfile derivedProfile(OsdUsageType usageType) {
        DeviceModel<?> model = model();
        return PatternDriver.derive(model, CalibrationPattern.standard()).profile(usageType, deviceClass(),
                model.capacityBytes());
    }

    /** A storage device that behaves like the model on the real clock; {@link StorageDevice#NONE} for none. */
    public StorageDevice device(Clock clock) {
        return device(clock, EmulatedDevice.parking(clock));
    }

    /**
     * A storage device that behaves like the model on {@code clock}, its callers waiting with {@code waiter} (a
     * test's virtual time moves both); {@link StorageDevice#NONE} for none.
     */
    public StorageDevice device(Clock clock, EmulatedDevice.Waiter waiter) {
        return emulated() ? emulatedDevice(model(), clock, waiter) : StorageDevice.NONE;
    }

    private static <S extends org.xtreemfs.qos.device.DeviceState> StorageDevice emulatedDevice(DeviceModel<S> model,
            Clock clock, EmulatedDevice.Waiter waiter) {
        return new EmulatedDevice<>(model, clock, waiter);
    }
}
