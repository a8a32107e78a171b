package org.xtreemfs.osd.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.CalibrationResult;
import org.xtreemfs.qos.device.PatternDriver;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;

/**
 * Closes the loop: {@code xtreemfs-osd --calibrate --short} on an emulated HDD and an emulated SSD OSD folder
 * measures, through the OSD's storage layer and real threads in real time, the profile derived from the emulated
 * model with the same pattern, within ±15 % at every measured stream count and for the random IOPS.
 */
class CalibrationTest {
    private static final double TOLERANCE = 0.15;

    @Test
    void calibratingAnEmulatedHddMeasuresTheModel(@TempDir Path folder) throws Exception {
        // Proves the emulated HDD delivers its derived profile when measured from outside.
        assertCalibrationMatchesTheModel(folder, DeviceEmulation.HDD7200);
    }

    @Test
    void calibratingAnEmulatedSsdMeasuresTheModel(@TempDir Path folder) throws Exception {
        // Proves the emulated SSD delivers its derived profile when measured from outside.
        assertCalibrationMatchesTheModel(folder, DeviceEmulation.SSD);
    }

    private static void assertCalibrationMatchesTheModel(Path folder, DeviceEmulation emulation) throws Exception {
        Path output = folder.resolve("profile.properties");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exitCode = CalibrateCommand.run(new String[] {"--calibrate", "--short", "--output", output.toString(),
                "-D", "osd.object.path=" + folder.resolve("objects"), "-D",
                "osd.device.emulation=" + emulation.configName()}, SystemClock.INSTANCE,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String progress = out.toString(StandardCharsets.UTF_8);
        assertThat(exitCode).as("exit code; stderr: %s", err).isEqualTo(ServerLauncher.EXIT_OK);
        assertThat(progress).contains("[ 1/17] fill").contains("[17/17] random-read-32KiB").contains("Wrote " + output);
        assertThat(folder.resolve("objects").resolve(CalibrateCommand.WORK_FOLDER)).doesNotExist();

        CalibrationResult derived = PatternDriver.derive(emulation.model(), CalibrationPattern.quick());
        OsdProfile measured = ProfileFile.read(output, OsdUsageType.SEQUENTIAL);
        OsdProfile expected = derived.profile(OsdUsageType.SEQUENTIAL, emulation.deviceClass(),
                emulation.model().capacityBytes());
        StringBuilder report = new StringBuilder(progress);
        for (int streams : CalibrationPattern.STREAM_COUNTS) {
            long measuredPoint = measured.sequentialThroughput().bytesPerSecond(streams);
            long expectedPoint = expected.sequentialThroughput().bytesPerSecond(streams);
            System.out.printf("%s %2d streams: measured %.2f MiB/s, model %.2f MiB/s (%.3f)%n", emulation, streams,
                    measuredPoint / 1048576.0, expectedPoint / 1048576.0, (double) measuredPoint / expectedPoint);
            assertThat((double) measuredPoint).as("%s at %d streams: measured %d B/s, model %d B/s%n%s",
                    emulation, streams, measuredPoint, expectedPoint, report)
                    .isBetween(expectedPoint * (1 - TOLERANCE), expectedPoint * (1 + TOLERANCE));
        }
        System.out.printf("%s random IOPS: measured %d, model %d (%.3f)%n", emulation, measured.randomIops(),
                expected.randomIops(), (double) measured.randomIops() / expected.randomIops());
        assertThat((double) measured.randomIops()).as("%s random IOPS: measured %d, model %d%n%s", emulation,
                measured.randomIops(), expected.randomIops(), report)
                .isBetween(expected.randomIops() * (1 - TOLERANCE), expected.randomIops() * (1 + TOLERANCE));
        assertThat(measured.deviceClass()).isEqualTo(emulation.deviceClass());

        Properties file = new Properties();
        try (var reader = Files.newBufferedReader(output)) {
            file.load(reader);
        }
        assertThat(file.getProperty("source")).isEqualTo("calibrated");
        assertThat(file.getProperty("emulation")).isEqualTo(emulation.configName());
        assertThat(file.getProperty("measured_at")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(Long.parseLong(file.getProperty("duration_ms"))).isPositive();
        assertThat(file.getProperty("pattern")).contains("16 files of 16MiB");
    }
}
