package org.xtreemfs.client.tools.cluster;

import java.nio.file.Path;
import java.util.Map;

/**
 * Everything needed to start one server: its kind, its name in the cluster, its complete settings (each
 * passed as {@code -D key=value}) and its log file. A restart uses the same spec, so the same port, data
 * and UUID.
 */
public record ServerSpec(String name, ServerKind kind, Map<String, String> settings, Path log) {
    public ServerSpec {
        settings = Map.copyOf(settings);
    }

    ServerSpec withSetting(String key, String value) {
        Map<String, String> changed = new java.util.HashMap<>(settings);
        changed.put(key, value);
        return new ServerSpec(name, kind, changed, log);
    }
}
