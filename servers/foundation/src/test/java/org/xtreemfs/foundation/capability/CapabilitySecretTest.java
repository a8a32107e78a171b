package org.xtreemfs.foundation.capability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CapabilitySecretTest {
    @TempDir
    Path folder;

    private Path secretFile(String content, String permissions) throws Exception {
        Path file = folder.resolve("secret");
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    @Test
    void aPrivateFilesFirstLineIsTheSecret() throws Exception {
        Path file = secretFile("  0123456789abcdef  \nignored\n", "rw-------");
        assertThat(CapabilitySecret.resolve("", file.toString())).isEqualTo("0123456789abcdef");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        assertThat(CapabilitySecret.resolve("", file.toString())).isEqualTo("0123456789abcdef");
    }

    @Test
    void aFileOthersOrTheGroupCanReadIsRefusedNamingItsMode() throws Exception {
        Path file = secretFile("0123456789abcdef\n", "rw-r--r--");
        assertThatThrownBy(() -> CapabilitySecret.resolve("", file.toString()))
                .hasMessage("capability.secretFile " + file + " is accessible to group or others (rw-r--r--); chmod 600 it");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> CapabilitySecret.resolve("", file.toString())).hasMessageContaining("(rw-r-----)");
    }

    @Test
    void theExampleOnceShippedInEtcIsRefusedInlineAndInAFile() throws Exception {
        assertThatThrownBy(() -> CapabilitySecret.resolve("xtreemfs-qos-change-this-secret", ""))
                .hasMessageStartingWith("capability.secret holds the example secret that etc/ once shipped");
        Path file = secretFile("xtreemfs-qos-change-this-secret\n", "rw-------");
        assertThatThrownBy(() -> CapabilitySecret.resolve("", file.toString()))
                .hasMessageStartingWith("capability.secretFile " + file + " holds the example secret");
    }

    @Test
    void noneBothAMissingFileAndAShortSecretAreRefusedWithWhatToDo() throws Exception {
        assertThatThrownBy(() -> CapabilitySecret.resolve("", ""))
                .hasMessageStartingWith("no capability secret: set capability.secretFile");
        assertThatThrownBy(() -> CapabilitySecret.resolve("0123456789", "/x"))
                .hasMessage("capability.secret and capability.secretFile are both set; set only capability.secretFile");
        assertThatThrownBy(() -> CapabilitySecret.resolve("", folder.resolve("absent").toString()))
                .hasMessage("capability.secretFile " + folder.resolve("absent") + " does not exist");
        Path file = secretFile("short\n", "rw-------");
        assertThatThrownBy(() -> CapabilitySecret.resolve("", file.toString()))
                .hasMessage("capability.secretFile " + file + " holds a secret of 5 characters; at least 8 are needed");
        assertThat(CapabilitySecret.resolve("an-inline-test-secret", "")).isEqualTo("an-inline-test-secret");
    }
}
