package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;

class BuiltInProfilesTest {

    @Test
    void theBuiltInHddProfileIsWhatTheHddModelDelivers() {
        // Proves OsdProfiles.hdd7200 equals the derivation from the buffered HDD under the standard pattern.
        WriteBackCache<HddState> model = WriteBackCache.osdHdd7200();
        OsdProfile derived = PatternDriver.derive(model, CalibrationPattern.standard())
                .profile(OsdUsageType.SEQUENTIAL, DeviceClass.HDD, model.capacityBytes());
        assertThat(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL)).isEqualTo(derived);
    }

    @Test
    void theBuiltInSsdProfileIsWhatTheSsdModelDelivers() {
        // Proves OsdProfiles.sataSsd equals the derivation from SsdModel.sata() under the standard pattern.
        SsdModel model = SsdModel.sata();
        OsdProfile derived = PatternDriver.derive(model, CalibrationPattern.standard())
                .profile(OsdUsageType.RANDOM, DeviceClass.SSD, model.capacityBytes());
        assertThat(OsdProfiles.sataSsd(OsdUsageType.RANDOM)).isEqualTo(derived);
    }
}
