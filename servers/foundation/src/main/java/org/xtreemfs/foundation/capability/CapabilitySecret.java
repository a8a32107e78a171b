package org.xtreemfs.foundation.capability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingTypes;
import org.xtreemfs.foundation.config.Settings;

/**
 * The one rule for where the MRC and the OSDs take the secret that signs and checks XCaps. Whoever knows it
 * can forge capabilities for any file, so: it comes from a file readable only by the service's user
 * ({@code capability.secretFile}, mode 0600 or 0400), or, for in-process tests and configuration files that
 * are themselves private, from {@code capability.secret}; exactly one of the two is set; and the example value
 * that etc/ once shipped is refused, because a cluster started with it accepts capabilities anyone can sign.
 * A command line is never the place (any local user reads it from /proc): the local cluster launcher writes a
 * fresh random secret to a 0600 file and passes its path.
 */
public final class CapabilitySecret {
    public static final Setting<String> INLINE = new Setting<>("capability.secret",
            SettingTypes.optionalText(XCapSigner.SECRET_LENGTH_MIN), "",
            "shared secret (at least 8 characters) signing and checking XCaps, the same on the MRC and every OSD;"
                    + " prefer capability.secretFile (set exactly one): a value here is readable by whoever reads"
                    + " this configuration");
    public static final Setting<String> FILE = new Setting<>("capability.secretFile", SettingTypes.string(true), "",
            "file whose first line is the shared secret signing and checking XCaps, the same on the MRC and every"
                    + " OSD; readable only by the service's user (chmod 600); make one with"
                    + " `head -c 32 /dev/urandom | base64 > FILE && chmod 600 FILE`");

    /** The example value etc/ shipped before this rule: refused, since everyone has it. */
    static final String SHIPPED_EXAMPLE = "xtreemfs-qos-change-this-secret";

    private static final Set<PosixFilePermission> OTHERS_OR_GROUP = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private CapabilitySecret() {}

    /** The secret the settings name; an {@link IllegalArgumentException} names the key and what to do. */
    public static String of(Settings settings) {
        return resolve(settings.get(INLINE), settings.get(FILE));
    }

    static String resolve(String inline, String file) {
        if (!inline.isEmpty() && !file.isEmpty()) {
            throw new IllegalArgumentException("capability.secret and capability.secretFile are both set; set only"
                    + " capability.secretFile");
        }
        if (inline.isEmpty() && file.isEmpty()) {
            throw new IllegalArgumentException("no capability secret: set capability.secretFile to a file readable"
                    + " only by this service's user holding the secret shared by the MRC and every OSD (make one"
                    + " with `head -c 32 /dev/urandom | base64 > FILE && chmod 600 FILE`)");
        }
        String secret = inline.isEmpty() ? readPrivateFile(Path.of(file)) : inline;
        String origin = inline.isEmpty() ? "capability.secretFile " + file : "capability.secret";
        if (secret.equals(SHIPPED_EXAMPLE)) {
            throw new IllegalArgumentException(origin + " holds the example secret that etc/ once shipped ('"
                    + SHIPPED_EXAMPLE + "'); anyone can sign capabilities with it: make a random one");
        }
        if (secret.length() < XCapSigner.SECRET_LENGTH_MIN) {
            throw new IllegalArgumentException(origin + " holds a secret of " + secret.length() + " characters; at"
                    + " least " + XCapSigner.SECRET_LENGTH_MIN + " are needed");
        }
        return secret;
    }

    private static String readPrivateFile(Path file) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (permissions.stream().anyMatch(OTHERS_OR_GROUP::contains)) {
                throw new IllegalArgumentException("capability.secretFile " + file + " is accessible to group or"
                        + " others (" + PosixFilePermissions.toString(permissions) + "); chmod 600 it");
            }
            String content = Files.readString(file, StandardCharsets.UTF_8);
            int end = content.indexOf('\n');
            return (end < 0 ? content : content.substring(0, end)).strip();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("capability.secretFile " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("capability.secretFile " + file + " cannot be read: " + e.getMessage());
        }
    }
}
