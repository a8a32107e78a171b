package org.xtreemfs.osd.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.CalibrationResult;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;

class ProfileRegistrationTest {

    /** A calibration result with made-up rates: 100 requests/s sequential, 50 random, in every phase. */
    static CalibrationResult sampleResult() {
        Map<String, Double> rates = new HashMap<>();
        for (CalibrationPattern.Phase phase : CalibrationPattern.quick().phases()) {
            if (phase.measured()) {
                rates.put(phase.name(), phase.shape() == CalibrationPattern.Shape.SEQUENTIAL ? 100.0 + phase.streams()
                        : 50.0);
            }
        }
        return CalibrationResult.fromPhaseRates(CalibrationPattern.quick(), rates);
    }

    @Test
    void aWrittenProfileFileReadsBackAsTheSameProfile(@TempDir Path folder) throws Exception {
        // Proves the file format round-trips exactly through OsdProfiles' keys and records how and when.
        Path file = folder.resolve("profile.properties");
        CalibrationResult result = sampleResult();
        ProfileFile.write(file, new ProfileFile.Calibrated(result, DeviceClass.HDD, 1L << 40,
                Instant.parse("2026-11-25T01:00:00Z"), folder, "none", true, CalibrationPattern.quick(), 42_000_000_000L));
        OsdProfile read = ProfileFile.read(file, OsdUsageType.RANDOM);
        assertThat(read).isEqualTo(result.profile(OsdUsageType.RANDOM, DeviceClass.HDD, 1L << 40));
        String text = Files.readString(file);
        assertThat(text).contains("source = calibrated", "measured_at = 2026-11-25T01:00:00Z", "direct_io = true",
                "duration_ms = 42000", "phase.random-read-4KiB.requests_per_second = 50.0");
        assertThat(ProfileFile.source(file)).isEqualTo("calibrated");
    }

    @Test
    void thePatternsObjectSizeIsTheReservedVolumesDefault() {
        // Proves the calibration measures in a reserved volume's default object size (qos cannot import foundation).
        assertThat(CalibrationPattern.OBJECT_SIZE_BYTES)
                .isEqualTo(StripingRules.RESERVED_OR_REPLICATED_DEFAULT_OBJECT_SIZE_BYTES);
    }

    @Test
    void aTmpfsFolderIsRefusedUnlessEmulated(@TempDir Path unused) throws Exception {
        // Proves the calibration refuses memory (tmpfs) as a disk, names the reason, and exits 1.
        Path shm = Path.of("/dev/shm");
        FileStore store = Files.getFileStore(shm);
        assertThat(store.type()).as("this test needs Linux's /dev/shm tmpfs").isEqualTo("tmpfs");
        Path folder = Files.createTempDirectory(shm, "calibration-refusal");
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exitCode = CalibrateCommand.run(new String[] {"--calibrate", "--short", "-D",
                    "osd.object.path=" + folder}, SystemClock.INSTANCE,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(exitCode).isEqualTo(CalibrateCommand.EXIT_FAILURE);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot measure meaningfully", "tmpfs",
                    "--force");
            assertThat(folder.resolve(CalibrateCommand.DEFAULT_OUTPUT_NAME)).doesNotExist();
        } finally {
            try (var paths = Files.walk(folder)) {
                for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    @Test
    void helpDescribesTheCalibration() {
        // Proves --calibrate --help prints the options and exits 0.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exitCode = CalibrateCommand.run(new String[] {"--calibrate", "--help"}, SystemClock.INSTANCE,
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(exitCode).isEqualTo(ServerLauncher.EXIT_OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--short", "--output", "--force");
    }

    @Test
    void theEmulatedModelImpliesTheDeviceClass() {
        // Proves the documented choice: the emulation's class wins over osd.device.class.
        assertThat(DeviceEmulation.HDD7200.deviceClass()).isEqualTo(DeviceClass.HDD);
        assertThat(DeviceEmulation.SSD.deviceClass()).isEqualTo(DeviceClass.SSD);
        assertThat(DeviceEmulation.SSD.derivedProfile(OsdUsageType.RANDOM).randomIops())
                .isGreaterThan(20 * DeviceEmulation.HDD7200.derivedProfile(OsdUsageType.RANDOM).randomIops());
    }
}
