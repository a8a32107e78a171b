package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.osd.calibration.ProfileFile;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.CalibrationPattern.Phase;
import org.xtreemfs.qos.device.CalibrationResult;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;

/** What the OSD registers at the DIR: the emulated model's derived profile, or the calibrated profile file. */
class OsdProfileRegistrationTest {
    private static final String SECRET = "profile-registration-secret";

    @Test
    void anEmulatedOsdRegistersItsModelsDerivedProfile(@TempDir Path folder) throws Exception {
        // Proves osd.device.emulation=ssd registers the slowed SSD's derived figures as class ssd, source "model ssd".
        Service service = registration(folder, Map.of("osd.device.emulation", "ssd", "osd.usage.type", "random",
                "osd.device.class", "hdd"));
        OsdProfile registered = QosWire.profile(service.getOsdAttributes().getProfile());
        OsdProfile derived = DeviceEmulation.SSD.derivedProfile(OsdUsageType.RANDOM);
        assertThat(service.getOsdAttributes().getProfile().getSource()).isEqualTo("model ssd");
        assertThat(registered.deviceClass()).isEqualTo(DeviceClass.SSD);
        assertThat(registered.sequentialThroughput()).isEqualTo(derived.sequentialThroughput());
        assertThat(registered.randomIops()).isEqualTo(derived.randomIops());
        assertThat(registered.capacityBytes()).isLessThanOrEqualTo(derived.capacityBytes());
    }

    @Test
    void aCalibratedProfileFileIsRegistered(@TempDir Path folder) throws Exception {
        // Proves osd.profile.path registers the file's figures with source "calibrated".
        Path file = folder.resolve("profile.properties");
        java.util.Map<String, Double> rates = new java.util.HashMap<>();
        for (Phase phase : CalibrationPattern.quick().phases()) {
            if (phase.measured()) {
                rates.put(phase.name(), 200.0 / (phase.streams() + 1));
            }
        }
        CalibrationResult result = CalibrationResult.fromPhaseRates(CalibrationPattern.quick(), rates);
        ProfileFile.write(file, new ProfileFile.Calibrated(result, DeviceClass.HDD, 1L << 50, Instant.now(), folder,
                "none", true, CalibrationPattern.quick(), 1000));
        Service service = registration(folder, Map.of("osd.profile.path", file.toString(),
                "osd.usage.type", "sequential", "osd.device.class", "hdd"));
        OsdProfile registered = QosWire.profile(service.getOsdAttributes().getProfile());
        assertThat(service.getOsdAttributes().getProfile().getSource()).isEqualTo("calibrated");
        assertThat(registered.sequentialThroughput()).isEqualTo(result.throughputCurve());
        assertThat(registered.randomIops()).isEqualTo(result.randomIops());
        assertThat(registered.capacityBytes()).isLessThan(1L << 50); // capped at the folder's file system
    }

    @Test
    void theConfiguredCapacityCapsTheRegisteredOne(@TempDir Path folder) throws Exception {
        // Proves osd.object.capacityBytes is what an OSD sharing its file system offers, not the whole disk.
        Service service = registration(folder, Map.of("osd.device.emulation", "hdd7200", "osd.usage.type",
                "sequential", "osd.object.capacityBytes", "3GiB"));
        assertThat(QosWire.profile(service.getOsdAttributes().getProfile()).capacityBytes()).isEqualTo(3L << 30);
    }

    @Test
    void theOfferedCapacityIsTheSmallestKnownBound() {
        // Proves the rule: a bound of 0 is unknown (file system) or unset (configuration) and caps nothing.
        assertThat(OsdServer.offeredCapacityBytes(1000, 0, 0)).isEqualTo(1000);
        assertThat(OsdServer.offeredCapacityBytes(1000, 700, 0)).isEqualTo(700);
        assertThat(OsdServer.offeredCapacityBytes(1000, 700, 300)).isEqualTo(300);
        assertThat(OsdServer.offeredCapacityBytes(1000, 0, 5000)).isEqualTo(1000);
    }

    private static Service registration(Path folder, Map<String, String> extra) throws Exception {
        try (FakeDir dir = new FakeDir()) {
            java.util.Map<String, String> values = new java.util.HashMap<>(extra);
            values.put("osd.heartbeat.periodMs", "100");
            try (OsdServer server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(folder.resolve("objects"),
                    dir.hostPort(), "osd-profile", SECRET, values)))) {
                server.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> !dir.registrations.isEmpty());
                return dir.registrations.get(0);
            }
        }
    }
}
