package org.xtreemfs.foundation.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The complete list of settings one program accepts. Validation is strict: unknown keys are errors
 * (a typo must not silently fall back to a default), and all problems are reported at once.
 */
public final class SettingsSchema {

    /** Unknown keys farther than this edit distance from every known key get no suggestion. */
    private static final int SUGGESTION_DISTANCE_MAX = 3;

    private final String name;
    private final Map<String, Setting<?>> settingsByKey;

    private SettingsSchema(String name, Map<String, Setting<?>> settingsByKey) {
        this.name = name;
        this.settingsByKey = settingsByKey;
    }

    /**
     * @param name shown in documentation, e.g. {@code osd}
     * @throws IllegalArgumentException if two settings share a key
     */
    public static SettingsSchema of(String name, List<Setting<?>> settings) {
        Map<String, Setting<?>> byKey = new LinkedHashMap<>();
        for (Setting<?> setting : settings) {
            if (byKey.putIfAbsent(setting.key(), setting) != null) {
                throw new IllegalArgumentException("setting " + setting.key()
                        + " is declared twice in schema " + name);
            }
        }
        return new SettingsSchema(name, byKey);
    }

    public static SettingsSchema of(String name, Setting<?>... settings) {
        return of(name, List.of(settings));
    }

    /** This schema plus the settings of another (e.g. shared KV settings); keys must not clash. */
    public SettingsSchema plus(SettingsSchema other) {
        List<Setting<?>> all = new ArrayList<>(settings());
        all.addAll(other.settings());
        return of(name, all);
    }

    public String name() {
        return name;
    }

    public List<Setting<?>> settings() {
        return List.copyOf(settingsByKey.values());
    }

    public Optional<Setting<?>> find(String key) {
        return Optional.ofNullable(settingsByKey.get(key));
    }

    /**
     * Checks every given key and value and fills in defaults.
     *
     * @throws SettingsException listing every unknown key, unparsable or out-of-bounds value and
     *     missing required setting
     */
    public Settings validate(Properties properties) throws SettingsException {
        List<String> problems = new ArrayList<>();
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            if (!settingsByKey.containsKey(key)) {
                problems.add(unknownKeyProblem(key));
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (Setting<?> setting : settingsByKey.values()) {
            String raw = properties.getProperty(setting.key());
            if (raw == null) {
                if (setting.isRequired()) {
                    problems.add(setting.key() + ": is required but not set ("
                            + setting.description() + ")");
                } else {
                    values.put(setting.key(), setting.defaultValue());
                }
                continue;
            }
            String trimmed = raw.trim();
            try {
                values.put(setting.key(), setting.type().parse(trimmed));
            } catch (IllegalArgumentException e) {
                problems.add(setting.key() + ": \"" + trimmed + "\" " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new Settings(this, values);
    }

    /** Validates the defaults alone; for tests and servers embedded in tests. */
    public Settings defaults() throws SettingsException {
        return validate(new Properties());
    }

    /**
     * Reads a properties file (ISO-8859-1 escapes as usual, UTF-8 text accepted) and applies
     * overrides on top; nothing is validated yet.
     *
     * @param configFile may be {@code null}: only the overrides apply
     * @throws SettingsException naming the file if it cannot be read
     */
    public static Properties load(Path configFile, Map<String, String> overrides)
            throws SettingsException {
        Properties properties = new Properties();
        if (configFile != null) {
            try (Reader reader = Files.newBufferedReader(configFile, StandardCharsets.UTF_8)) {
                properties.load(reader);
            } catch (NoSuchFileException e) {
                throw new SettingsException(configFile + ": config file does not exist");
            } catch (IOException | IllegalArgumentException e) {
                throw new SettingsException(configFile + ": cannot read config file: "
                        + e.getMessage());
            }
        }
        overrides.forEach(properties::setProperty);
        return properties;
    }

    /**
     * Every setting as a commented properties file: description, accepted values, then
     * {@code key = default}; required settings appear commented out with no value.
     */
    public String renderPropertiesDocumentation() {
        StringBuilder text = new StringBuilder();
        text.append("# Settings of ").append(name).append(". Generated from the schema; every key")
                .append(" is optional unless marked required.\n");
        for (Setting<?> setting : settingsByKey.values()) {
            text.append('\n');
            text.append("# ").append(setting.description()).append('\n');
            text.append("# ").append(setting.type().describe());
            if (setting.isRequired()) {
                text.append(", required\n");
                text.append("#").append(setting.key()).append(" =\n");
            } else {
                text.append('\n');
                text.append(setting.key()).append(" = ").append(setting.formattedDefault())
                        .append('\n');
            }
        }
        return text.toString();
    }

    /**
     * Checks that a shipped properties file (e.g. {@code etc/osd.properties}) documents every
     * setting: its description appears as a comment line and its key appears, set or commented
     * out. Values are checked separately with {@link #validate}.
     *
     * @return one problem per undocumented setting; empty if the file is complete
     */
    public List<String> documentationProblems(String propertiesText) {
        List<String> lines = propertiesText.lines().map(String::strip).toList();
        List<String> problems = new ArrayList<>();
        for (Setting<?> setting : settingsByKey.values()) {
            if (!lines.contains("# " + setting.description())) {
                problems.add(setting.key() + ": description comment \"# "
                        + setting.description() + "\" is missing");
            }
            boolean keyPresent = lines.stream().anyMatch(line -> {
                String uncommented = line.startsWith("#") ? line.substring(1).strip() : line;
                return uncommented.startsWith(setting.key() + " ")
                        || uncommented.startsWith(setting.key() + "=");
            });
            if (!keyPresent) {
                problems.add(setting.key() + ": key is missing");
            }
        }
        return problems;
    }

    /** One aligned line per setting, for {@code --help} and {@code --print-settings}. */
    public String renderSummary() {
        int keyWidth = 0;
        for (String key : settingsByKey.keySet()) {
            keyWidth = Math.max(keyWidth, key.length());
        }
        StringBuilder text = new StringBuilder();
        for (Setting<?> setting : settingsByKey.values()) {
            String defaultText = setting.isRequired() ? "required"
                    : "default " + quoteIfEmpty(setting.formattedDefault());
            text.append(String.format("  %-" + keyWidth + "s  %s (%s; %s)%n", setting.key(),
                    setting.description(), setting.type().describe(), defaultText));
        }
        return text.toString();
    }

    private static String quoteIfEmpty(String value) {
        return value.isEmpty() ? "\"\"" : value;
    }

    private String unknownKeyProblem(String key) {
        String closest = null;
        int closestDistance = SUGGESTION_DISTANCE_MAX + 1;
        for (String known : settingsByKey.keySet()) {
            int distance = editDistance(key, known);
            if (distance < closestDistance) {
                closest = known;
                closestDistance = distance;
            }
        }
        return key + ": unknown setting" + (closest == null ? "" : " (did you mean " + closest
                + "?)");
    }

    /** Levenshtein distance; keys are short, so the quadratic table is cheap. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
