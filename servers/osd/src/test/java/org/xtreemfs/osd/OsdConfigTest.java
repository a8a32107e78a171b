package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.foundation.launcher.ShutdownSignal;

class OsdConfigTest {
    private static final Path SHIPPED = Path.of("../../etc/osdconfig.properties");

    @Test
    void theShippedFileDocumentsEveryKeyAndValidates() throws IOException, SettingsException {
        // Proves etc/osdconfig.properties has a comment and a line for every setting and nothing unknown.
        List<String> lines = Files.readAllLines(SHIPPED, StandardCharsets.UTF_8);
        for (Setting<?> setting : OsdConfig.SCHEMA.settings()) {
            int line = lines.indexOf(lines.stream().filter(l -> l.startsWith(setting.key() + " =")).findFirst()
                    .orElseThrow(() -> new AssertionError(setting.key() + " is not in " + SHIPPED)));
            assertThat(lines.get(line - 2)).as("comment above %s", setting.key()).startsWith("# ");
        }
        OsdConfig config = OsdConfig.load(SHIPPED, Map.of());
        assertThat(config.port()).isEqualTo(32640);
        assertThat(config.statusPort()).isEqualTo(30640);
        // The shipped file names a secret file that only exists once an operator made it.
        assertThatThrownBy(config::capabilitySecret).hasMessage("capability.secretFile /etc/xtreemfs/capability.secret"
                + " does not exist");
    }

    @Test
    void badKeysAndValuesAreNamedTogetherWithTheBadValue() {
        // Proves every problem names its key and, for bad values, the value.
        assertThatThrownBy(() -> OsdConfig.of(Map.of("osd.usage.type", "fast", "osd.port", "70000",
                "osd.storage.thread", "4", "capability.secret", "short")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("osd.usage.type: \"fast\" is not one of sequential|random|best_effort")
                .hasMessageContaining("osd.port: \"70000\"")
                .hasMessageContaining("osd.storage.thread: unknown setting (did you mean osd.storage.threads?)")
                .hasMessageContaining("capability.secret: \"short\" is shorter than 8 characters");
    }

    @Test
    void badEmulationAndProfilePathExitWithUsageNamingKeyAndValue(@org.junit.jupiter.api.io.TempDir Path folder)
            throws IOException {
        // Proves the new keys: an unknown model and a missing or invalid profile file exit 2 naming key and value.
        assertUsageError(new String[] {"-D", "osd.device.emulation=floppy"},
                "osd.device.emulation: \"floppy\" is not one of none|hdd7200|ssd");
        Path missing = folder.resolve("missing.properties");
        assertUsageError(new String[] {"-D", "osd.profile.path=" + missing},
                "osd.profile.path: \"" + missing + "\" is not a readable profile file");
        Path invalid = folder.resolve("invalid.properties");
        Files.writeString(invalid, "source = calibrated\ndevice_class = hdd\ncapacity = 1TiB\n"
                + "sequential_throughput_curve = 100MiB/s\nsequential_throughput_floor = 1MiB/s\nrandom_iops = many\n");
        assertUsageError(new String[] {"-D", "osd.profile.path=" + invalid}, "random_iops: \"many\"");
        assertUsageError(new String[] {"--calibrate", "-D", "osd.device.emulation=floppy"},
                "osd.device.emulation: \"floppy\"");
    }

    private static void assertUsageError(String[] args, String expected) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        int exitCode = org.xtreemfs.osd.calibration.CalibrateCommand.requested(args)
                ? org.xtreemfs.osd.calibration.CalibrateCommand.run(args,
                        org.xtreemfs.foundation.clock.SystemClock.INSTANCE, outStream, errStream)
                : OsdMain.LAUNCHER.launch(args, OsdMain::start, outStream, errStream, new ShutdownSignal());
        assertThat(exitCode).isEqualTo(ServerLauncher.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(expected).doesNotContain("\tat ");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("READY");
    }

    @Test
    void theLauncherExitsNonZeroNamingTheBadSetting() {
        // Proves bin/xtreemfs-osd's entry refuses a bad value with a usage exit code and one clear line.
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exitCode = OsdMain.LAUNCHER.launch(new String[] {"-D", "osd.device.class=tape"}, OsdMain::start,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                new ShutdownSignal());
        assertThat(exitCode).isEqualTo(ServerLauncher.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("osd.device.class: \"tape\"");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("READY");
    }
}
