package org.xtreemfs.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.config.SettingsSchema;
import org.xtreemfs.foundation.launcher.ServerLauncher;

class MrcConfigTest {
    private static final Path SHIPPED = Path.of("../../etc/mrcconfig.properties");

    @Test
    void shippedFileDocumentsEverySettingAndIsValid() throws Exception {
        // etc/mrcconfig.properties names and describes every key, and its values validate.
        String text = Files.readString(SHIPPED);
        assertThat(MrcConfig.SCHEMA.documentationProblems(text)).isEmpty();
        MrcConfig config = MrcConfig.fromProperties(SettingsSchema.load(SHIPPED, Map.of()));
        assertThat(config.port()).isEqualTo(32636);
        assertThat(config.statusPort()).isEqualTo(30636);
        assertThat(config.placementFreeSpaceMinBytes()).isEqualTo(64L << 20);
    }

    @Test
    void theStoreSizesAreSettingsAndReachTheStoreOptions() throws Exception {
        // mrc.kv.* (as the DIR's dir.kv.*) size the MRC's RocksDB; before, the MRC always opened it with the defaults.
        MrcConfig config = MrcConfig.of(Map.of("mrc.kv.writeBufferBytes", "4MiB", "mrc.kv.blockCacheBytes", "16MiB",
                "mrc.database.path", "/tmp/mrc-db"));
        assertThat(config.kvOptions().writeBufferBytes()).isEqualTo(4L << 20);
        assertThat(config.kvOptions().blockCacheBytes()).isEqualTo(16L << 20);
        assertThat(config.kvOptions().directory()).isEqualTo(Path.of("/tmp/mrc-db"));
    }

    @Test
    void unknownKeysAndBadValuesAreNamed() {
        // A typo'd key and an unparsable value each appear in the error with the offending text.
        SettingsException unknown = catchThrowableOfType(SettingsException.class,
                () -> MrcConfig.of(Map.of("mrc.prot", "1")));
        assertThat(unknown.getMessage()).contains("mrc.prot").contains("did you mean mrc.port");
        SettingsException badValue = catchThrowableOfType(SettingsException.class,
                () -> MrcConfig.of(Map.of("mrc.port", "seventy")));
        assertThat(badValue.getMessage()).contains("mrc.port").contains("seventy");
        SettingsException shortSecret = catchThrowableOfType(SettingsException.class,
                () -> MrcConfig.of(Map.of("capability.secret", "short")));
        assertThat(shortSecret.getMessage()).contains("capability.secret").contains("too short");
    }

    @Test
    void launcherExitsWithUsageCodeNamingTheBadKey() {
        // The main's command line refuses a bad -D value with exit code 2 and a line naming key and value.
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ServerLauncher launcher = new ServerLauncher("mrc", MrcMain.VERSION, MrcConfig.SCHEMA);
        ServerLauncher.Decision decision = launcher.parse(new String[] {"-D", "mrc.heartbeat.periodMs=-5"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(decision).isEqualTo(new ServerLauncher.Exit(ServerLauncher.EXIT_USAGE));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("mrc.heartbeat.periodMs").contains("-5");
    }
}
