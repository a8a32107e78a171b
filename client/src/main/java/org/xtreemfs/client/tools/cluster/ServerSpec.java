package org.xtreemfs.client.tools.cluster;

import java.nio.file.Path;
import java.util.Map;

/**
 * Everything needed to start one server: its kind, its name in the cluster, its complete settings (each
 * passed as {@code -D key=value}), its log file and the network namespace it runs in (empty: the launcher's
 * own; see {@link NetworkHost}). A restart uses the same spec, so the same port, data, UUID and host.
 */
public record ServerSpec(String name, ServerKind kind, Map<String, String> settings, Path log,
        String networkNamespace) {
    public ServerSpec {
        settings = Map.copyOf(settings);
        java.util.Objects.requireNonNull(networkNamespace, "networkNamespace");
    }

    /** A server in the launcher's own network namespace. */
    public ServerSpec(String name, ServerKind kind, Map<String, String> settings, Path log) {
        this(name, kind, settings, log, "");
    }

    ServerSpec withSetting(String key, String value) {
        Map<String, String> changed = new java.util.HashMap<>(settings);
        changed.put(key, value);
        return new ServerSpec(name, kind, changed, log, networkNamespace);
    }
}
