package org.xtreemfs.foundation.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Validated values for every setting of one {@link SettingsSchema}; immutable. Obtained only from
 * {@link SettingsSchema#validate}, so every value is parsed and within bounds.
 */
public final class Settings {

    private final SettingsSchema schema;
    private final Map<String, Object> valuesByKey;

    Settings(SettingsSchema schema, Map<String, Object> valuesByKey) {
        this.schema = schema;
        this.valuesByKey = Collections.unmodifiableMap(new LinkedHashMap<>(valuesByKey));
    }

    /**
     * The value of a setting of this schema (its default if none was given).
     *
     * @throws IllegalArgumentException if the setting is not part of the schema (a wiring bug)
     */
    public <T> T get(Setting<T> setting) {
        if (schema.find(setting.key()).filter(setting::equals).isEmpty()) {
            throw new IllegalArgumentException("setting " + setting.key()
                    + " is not part of schema " + schema.name());
        }
        @SuppressWarnings("unchecked")
        T value = (T) valuesByKey.get(setting.key());
        return value;
    }

    public SettingsSchema schema() {
        return schema;
    }

    /** Every effective value as it would be written in a properties file, in schema order. */
    public Map<String, String> formatted() {
        Map<String, String> result = new LinkedHashMap<>();
        for (Setting<?> setting : schema.settings()) {
            result.put(setting.key(), format(setting));
        }
        return result;
    }

    private <T> String format(Setting<T> setting) {
        return setting.type().format(get(setting));
    }

    @Override
    public String toString() {
        return schema.name() + formatted();
    }
}
