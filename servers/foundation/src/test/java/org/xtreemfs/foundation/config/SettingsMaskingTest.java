package org.xtreemfs.foundation.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingsMaskingTest {
    private static final Setting<String> SECRET = Setting.string("capability.secret", "default-secret",
            "Signs capabilities.");
    private static final Setting<Integer> PORT = Setting.port("osd.port", 32640, "RPC port.");

    // Logged settings never show a secret's value, while other values and the secret itself stay usable.
    @Test
    void toStringMasksSecretsOnly() throws SettingsException {
        Properties properties = new Properties();
        properties.setProperty("capability.secret", "very-private-value");
        properties.setProperty("osd.port", "4711");
        Settings settings = SettingsSchema.of("osd", SECRET, PORT).validate(properties);
        assertThat(settings.toString()).doesNotContain("very-private-value").contains("capability.secret=******")
                .contains("osd.port=4711");
        assertThat(settings.get(SECRET)).isEqualTo("very-private-value");
        assertThat(settings.formatted()).containsEntry("capability.secret", "very-private-value");
    }
}
