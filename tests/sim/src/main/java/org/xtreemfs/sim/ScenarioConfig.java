package org.xtreemfs.sim;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * A scenario file (Java properties). Tenants are declared as groups, {@code tenants=rr*10,sr*10}, which makes
 * tenants rr01..rr10 and sr01..sr10; a tenant setting is looked up as {@code tenant.<id>.<key>}, then
 * {@code tenant.<group>.<key>}, then {@code tenant.default.<key>}. Every error names the key and the file.
 */
final class ScenarioConfig {
    private static final int TENANTS_MAX = 10_000;

    /** A declared tenant: its id, its group and its position in the declaration (0-based). */
    record TenantRef(String id, String group, int ordinal) {}

    private final String source;
    private final Properties properties;

    private ScenarioConfig(String source, Properties properties) {
        this.source = source;
        this.properties = properties;
    }

    static ScenarioConfig read(String source, InputStream input) throws IOException {
        Properties properties = new Properties();
        properties.load(input);
        return new ScenarioConfig(source, properties);
    }

    static ScenarioConfig parse(String source, String text) {
        Properties properties = new Properties();
        try (Reader reader = new StringReader(text)) {
            properties.load(reader);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
        return new ScenarioConfig(source, properties);
    }

    String source() {
        return source;
    }

    String string(String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(source + ": missing key " + key);
        }
        return value.trim();
    }

    String string(String key, String fallback) {
        String value = properties.getProperty(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    boolean has(String key) {
        return properties.getProperty(key) != null;
    }

    double number(String key) {
        String value = string(key);
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(source + ": key " + key + " must be a number, was '" + value + "'");
        }
    }

    double number(String key, double fallback) {
        return has(key) ? number(key) : fallback;
    }

    <E extends Enum<E>> E choice(String key, Class<E> type) {
        String value = string(key);
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException unknown) {
            throw new IllegalArgumentException(source + ": key " + key + " must be one of "
                    + List.of(type.getEnumConstants()).toString().toLowerCase(Locale.ROOT) + ", was '" + value + "'");
        }
    }

    List<String> list(String key) {
        List<String> items = new ArrayList<>();
        for (String item : string(key).split(",")) {
            if (!item.isBlank()) {
                items.add(item.trim());
            }
        }
        return items;
    }

    List<TenantRef> tenants() {
        List<TenantRef> tenants = new ArrayList<>();
        for (String group : list("tenants")) {
            String[] nameAndCount = group.split("\\*");
            String groupName = nameAndCount[0].trim();
            int count = nameAndCount.length > 1 ? (int) parseCount(nameAndCount[1].trim()) : 1;
            for (int index = 1; index <= count; index++) {
                String id = count == 1 ? groupName : groupName + (count >= 10 ? String.format("%02d", index) : index);
                tenants.add(new TenantRef(id, groupName, tenants.size()));
                if (tenants.size() > TENANTS_MAX) {
                    throw new IllegalArgumentException(source + ": more than " + TENANTS_MAX + " tenants");
                }
            }
        }
        return tenants;
    }

    String tenantKey(TenantRef tenant, String key) {
        for (String scope : List.of(tenant.id(), tenant.group(), "default")) {
            String full = "tenant." + scope + "." + key;
            if (has(full)) {
                return full;
            }
        }
        return "tenant." + tenant.group() + "." + key;
    }

    String tenantString(TenantRef tenant, String key) {
        return string(tenantKey(tenant, key));
    }

    String tenantString(TenantRef tenant, String key, String fallback) {
        return string(tenantKey(tenant, key), fallback);
    }

    double tenantNumber(TenantRef tenant, String key) {
        return number(tenantKey(tenant, key));
    }

    double tenantNumber(TenantRef tenant, String key, double fallback) {
        return number(tenantKey(tenant, key), fallback);
    }

    <E extends Enum<E>> E tenantChoice(TenantRef tenant, String key, Class<E> type) {
        return choice(tenantKey(tenant, key), type);
    }

    private long parseCount(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(source + ": key tenants has a bad group count '" + text + "'");
        }
    }
}
