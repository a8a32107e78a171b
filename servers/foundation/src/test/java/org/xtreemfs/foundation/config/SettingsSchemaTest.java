package org.xtreemfs.foundation.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsSchemaTest {

    enum Policy { FIFO, WEIGHTED_FAIR }

    static final Setting<Integer> PORT = Setting.port("osd.port", 32640, "RPC port of the OSD.");
    static final Setting<Long> OBJECT_SIZE = Setting.byteSize("osd.objectSizeBytes", 128 * 1024,
            4096, 1L << 30, "Size of one stored object.");
    static final Setting<Boolean> FSYNC = Setting.bool("osd.fsyncWrites", false,
            "Whether every write is fsynced.");
    static final Setting<Policy> POLICY = Setting.enumeration("osd.queuePolicy", Policy.class,
            Policy.FIFO, "How the QoS stage orders requests.");
    static final Setting<Path> DATA = Setting.path("osd.dataDirectory", Path.of("/var/lib/osd"),
            "Where objects are stored.");
    static final Setting<HostPort> DIR = Setting.hostPort("osd.directoryService",
            new HostPort("localhost", 32638), "Address of the DIR.");
    static final Setting<String> UUID = Setting.string("osd.uuid", "x", "Identity of the OSD.")
            .required();

    static final SettingsSchema SCHEMA = SettingsSchema.of("osd", PORT, OBJECT_SIZE, FSYNC,
            POLICY, DATA, DIR, UUID);

    private static Properties properties(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return properties;
    }

    @Test
    void parsesEveryTypeAndFillsDefaults() throws SettingsException {
        // Proves each built-in type parses its file form and absent keys take their defaults.
        Settings settings = SCHEMA.validate(properties("osd.uuid", "osd-1",
                "osd.objectSizeBytes", "1MiB", "osd.fsyncWrites", "TRUE",
                "osd.queuePolicy", "weighted_fair", "osd.directoryService", "[::1]:4000",
                "osd.port", " 0 "));
        assertThat(settings.get(UUID)).isEqualTo("osd-1");
        assertThat(settings.get(OBJECT_SIZE)).isEqualTo(1L << 20);
        assertThat(settings.get(FSYNC)).isTrue();
        assertThat(settings.get(POLICY)).isEqualTo(Policy.WEIGHTED_FAIR);
        assertThat(settings.get(DIR)).isEqualTo(new HostPort("::1", 4000));
        assertThat(settings.get(PORT)).isZero();
        assertThat(settings.get(DATA)).isEqualTo(Path.of("/var/lib/osd"));
        assertThat(settings.formatted()).containsEntry("osd.objectSizeBytes", "1MiB")
                .containsEntry("osd.directoryService", "[::1]:4000");
    }

    @Test
    void outOfRangeValueNamesKeyValueAndRange() {
        // Proves the error message format promised to operators: key, quoted value, range.
        assertThatThrownBy(() -> SCHEMA.validate(properties("osd.uuid", "u", "osd.port", "70000")))
                .isInstanceOf(SettingsException.class)
                .hasMessage("osd.port: \"70000\" is out of range 0..65535");
    }

    @Test
    void reportsAllProblemsAtOnce() {
        // Proves unknown keys (with suggestion), bad values and missing keys are all listed.
        assertThatThrownBy(() -> SCHEMA.validate(properties("osd.prot", "1",
                "osd.objectSizeBytes", "12KB", "osd.fsyncWrites", "yes")))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.problems())
                        .containsExactly(
                                "osd.prot: unknown setting (did you mean osd.port?)",
                                "osd.objectSizeBytes: \"12KB\" has unknown unit \"kb\""
                                        + " (use B, KiB, MiB, GiB, TiB or PiB)",
                                "osd.fsyncWrites: \"yes\" is not true or false",
                                "osd.uuid: is required but not set (Identity of the OSD.)"));
    }

    @Test
    void sizeBelowMinimumIsRejectedWithReadableBounds() {
        // Proves size bounds are printed in binary units, not raw byte counts.
        assertThatThrownBy(() -> SCHEMA.validate(properties("osd.uuid", "u",
                "osd.objectSizeBytes", "1KiB")))
                .hasMessage("osd.objectSizeBytes: \"1KiB\" is out of range 4KiB..1GiB");
    }

    @Test
    void badEnumAndHostPortAreRejected() {
        // Proves enum and host:port values outside their forms name the accepted forms.
        assertThatThrownBy(() -> SCHEMA.validate(properties("osd.uuid", "u",
                "osd.queuePolicy", "lifo", "osd.directoryService", "localhost")))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.problems())
                        .containsExactly(
                                "osd.queuePolicy: \"lifo\" is not one of fifo|weighted_fair",
                                "osd.directoryService: \"localhost\" is not of the form"
                                        + " host:port"));
    }

    @Test
    void overridesWinOverFileAndMissingFileIsNamed(@TempDir Path folder)
            throws IOException, SettingsException {
        // Proves command-line overrides replace file values and a missing file is a named error.
        Path file = folder.resolve("osd.properties");
        Files.writeString(file, "osd.uuid = from-file\nosd.port = 1000\n");
        Settings settings = SCHEMA.validate(SettingsSchema.load(file, Map.of("osd.port", "2000")));
        assertThat(settings.get(UUID)).isEqualTo("from-file");
        assertThat(settings.get(PORT)).isEqualTo(2000);
        Path missing = folder.resolve("absent.properties");
        assertThatThrownBy(() -> SettingsSchema.load(missing, Map.of()))
                .hasMessageContaining("absent.properties: config file does not exist");
    }

    @Test
    void renderedDocumentationValidatesBackToDefaults() throws SettingsException, IOException {
        // Proves the generated properties file documents every key and parses to the defaults.
        String documentation = SCHEMA.renderPropertiesDocumentation();
        assertThat(documentation).contains("# Size of one stored object.\n# size 4KiB..1GiB\n"
                + "osd.objectSizeBytes = 128KiB\n").contains("#osd.uuid =\n");
        Properties parsed = new Properties();
        parsed.load(new java.io.StringReader(documentation));
        parsed.setProperty("osd.uuid", "u");
        assertThat(SCHEMA.validate(parsed).formatted())
                .isEqualTo(SCHEMA.validate(properties("osd.uuid", "u")).formatted());
        assertThat(SCHEMA.renderSummary()).contains("osd.port", "RPC port of the OSD.",
                "integer 0..65535", "default 32640", "required");
    }

    @Test
    void shippedFileCheckFindsUndocumentedSettings() {
        // Proves the etc-file check accepts generated documentation and names what a file lacks.
        assertThat(SCHEMA.documentationProblems(SCHEMA.renderPropertiesDocumentation())).isEmpty();
        String incomplete = SCHEMA.renderPropertiesDocumentation()
                .replace("# RPC port of the OSD.\n", "")
                .replace("osd.fsyncWrites = false\n", "");
        assertThat(SCHEMA.documentationProblems(incomplete)).containsExactly(
                "osd.port: description comment \"# RPC port of the OSD.\" is missing",
                "osd.fsyncWrites: key is missing");
    }

    @Test
    void declarationMistakesFailFast() {
        // Proves duplicate keys, bad key shapes and out-of-bounds defaults fail at declaration.
        assertThatThrownBy(() -> SettingsSchema.of("x", PORT, PORT))
                .hasMessageContaining("declared twice");
        assertThatThrownBy(() -> Setting.integer("Bad Key", 1, 0, 2, "d"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Setting.integer("a.b", 5, 0, 2, "d"))
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> Setting.integer("a.b", 1, 0, 2, "two\nlines"))
                .hasMessageContaining("one non-empty line");
    }

    @Test
    void settingFromAnotherSchemaIsAWiringBug() throws SettingsException {
        // Proves reading a setting that is not in the schema fails instead of returning null.
        Setting<Integer> foreign = Setting.integer("mrc.port", 1, 0, 2, "d");
        Settings settings = SCHEMA.validate(properties("osd.uuid", "u"));
        assertThatThrownBy(() -> settings.get(foreign)).hasMessageContaining("not part of schema");
    }
}
