package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.SettingsException;

class DirConfigTest {
    private static final Path SHIPPED_CONFIG = Path.of("../../etc/dirconfig.properties");

    private static Properties properties(String key, String value) {
        Properties properties = new Properties();
        properties.setProperty(key, value);
        return properties;
    }

    // Without settings the DIR uses the documented defaults (ports 32638/30638, 30 s heartbeat timeout).
    @Test
    void defaultsAreTheDocumentedOnes() throws Exception {
        DirConfig config = DirConfig.from(new Properties());
        assertThat(config.port()).isEqualTo(32638);
        assertThat(config.statusPort()).isEqualTo(30638);
        assertThat(config.heartbeatTimeoutMs()).isEqualTo(30_000);
    }

    // An out-of-range port is rejected with a message naming the key and the value.
    @Test
    void outOfRangePortNamesKeyAndValue() {
        assertThatThrownBy(() -> DirConfig.from(properties("dir.port", "70000")))
                .isInstanceOf(SettingsException.class).hasMessageContaining("dir.port").hasMessageContaining("70000");
    }

    // A non-numeric timeout is rejected naming the key and the value.
    @Test
    void nonNumericTimeoutNamesKeyAndValue() {
        assertThatThrownBy(() -> DirConfig.from(properties("dir.heartbeat.timeoutMs", "soon")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("dir.heartbeat.timeoutMs").hasMessageContaining("soon");
        assertThatThrownBy(() -> DirConfig.from(properties("dir.heartbeat.timeoutMs", "0")))
                .isInstanceOf(SettingsException.class).hasMessageContaining("dir.heartbeat.timeoutMs");
    }

    // A misspelt key is an error naming it (and suggesting the real key), never silently ignored.
    @Test
    void unknownKeyIsNamed() {
        assertThatThrownBy(() -> DirConfig.from(properties("dir.heartbeat.timeoutMS", "1000")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("dir.heartbeat.timeoutMS").hasMessageContaining("dir.heartbeat.timeoutMs");
    }

    // Overrides win over the config file, and forTesting binds loopback with free ports.
    @Test
    void overridesAndTestingConfig() throws Exception {
        DirConfig config = DirConfig.load(SHIPPED_CONFIG, Map.of("dir.port", "4242"));
        assertThat(config.port()).isEqualTo(4242);
        DirConfig testing = DirConfig.forTesting(Path.of("/tmp/x"), Map.of("dir.heartbeat.timeoutMs", "5"));
        assertThat(testing.port()).isZero();
        assertThat(testing.statusPort()).isZero();
        assertThat(testing.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(testing.heartbeatTimeoutMs()).isEqualTo(5);
    }

    // etc/dirconfig.properties is valid and documents every key of the schema with its default.
    @Test
    void shippedConfigDocumentsEveryKey() throws Exception {
        String text = Files.readString(SHIPPED_CONFIG);
        DirConfig shipped = DirConfig.load(SHIPPED_CONFIG, Map.of());
        assertThat(DirConfig.SCHEMA.documentationProblems(text)).isEmpty();
        assertThat(shipped.port()).isEqualTo(32638);
    }
}
