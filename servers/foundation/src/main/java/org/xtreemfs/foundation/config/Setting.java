package org.xtreemfs.foundation.config;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * One setting, declared once: its key (units last, e.g. {@code osd.objectSizeBytes}), its type with
 * bounds, its default ({@code null} = required, must be given) and a one-line description.
 *
 * @param <T> the parsed value type
 */
public record Setting<T>(String key, SettingType<T> type, T defaultValue, String description) {

    private static final Pattern KEY = Pattern.compile("[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*");

    public Setting {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException(
                    "setting key must be dotted camelCase words: " + key);
        }
        if (type == null) {
            throw new IllegalArgumentException(key + ": setting type is missing");
        }
        if (description == null || description.isBlank() || description.contains("\n")) {
            throw new IllegalArgumentException(key + ": description must be one non-empty line");
        }
        if (defaultValue != null) {
            // A default that its own bounds would reject is a declaration bug; fail at class load.
            type.parse(type.format(defaultValue));
        }
    }

    public boolean isRequired() {
        return defaultValue == null;
    }

    /** The default as written in a properties file, or the empty string for required settings. */
    public String formattedDefault() {
        return defaultValue == null ? "" : type.format(defaultValue);
    }

    public static Setting<Integer> integer(String key, int defaultValue, int min, int max,
            String description) {
        return new Setting<>(key, SettingTypes.integer(min, max), defaultValue, description);
    }

    /** A TCP port; 0 means "any free port", which tests use. */
    public static Setting<Integer> port(String key, int defaultValue, String description) {
        return integer(key, defaultValue, 0, 65_535, description);
    }

    public static Setting<Long> longInteger(String key, long defaultValue, long min, long max,
            String description) {
        return new Setting<>(key, SettingTypes.longInteger(min, max), defaultValue, description);
    }

    /** A byte size; the key should end in {@code Bytes}. Written as {@code 128KiB} in files. */
    public static Setting<Long> byteSize(String key, long defaultBytes, long minBytes,
            long maxBytes, String description) {
        return new Setting<>(key, SettingTypes.byteSize(minBytes, maxBytes), defaultBytes,
                description);
    }

    public static Setting<String> string(String key, String defaultValue, String description) {
        return new Setting<>(key, SettingTypes.string(false), defaultValue, description);
    }

    public static Setting<Boolean> bool(String key, boolean defaultValue, String description) {
        return new Setting<>(key, SettingTypes.bool(), defaultValue, description);
    }

    public static <E extends Enum<E>> Setting<E> enumeration(String key, Class<E> enumClass,
            E defaultValue, String description) {
        return new Setting<>(key, SettingTypes.enumeration(enumClass), defaultValue, description);
    }

    public static Setting<Path> path(String key, Path defaultValue, String description) {
        return new Setting<>(key, SettingTypes.path(), defaultValue, description);
    }

    public static Setting<HostPort> hostPort(String key, HostPort defaultValue,
            String description) {
        return new Setting<>(key, SettingTypes.hostPort(), defaultValue, description);
    }

    /** The same setting without a default: start-up fails unless it is given. */
    public Setting<T> required() {
        return new Setting<>(key, type, null, description);
    }
}
