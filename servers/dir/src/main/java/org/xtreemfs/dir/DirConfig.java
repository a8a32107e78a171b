package org.xtreemfs.dir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.config.SettingsSchema;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvSettings;
import org.xtreemfs.foundation.rpc.RpcTls;
import org.xtreemfs.foundation.rpc.RpcTlsSettings;
import org.xtreemfs.foundation.status.StatusPageServer;
import org.xtreemfs.foundation.status.StatusPageSettings;

/**
 * The DIR's settings, each declared once below; instances hold validated values only. Build one with
 * {@link #from(Properties)} (a config file plus overrides) or {@link #forTesting(Path)}.
 */
public final class DirConfig {
    public static final Setting<String> BIND_ADDRESS = Setting.string("dir.bindAddress", "0.0.0.0",
            "Address the RPC and status servers listen on (0.0.0.0: every interface).");
    public static final Setting<Integer> PORT = Setting.port("dir.port", 32638,
            "TCP port of the DIR's RPC interface; 0 picks a free port.");
    public static final Setting<Integer> STATUS_PORT = Setting.port("dir.status.port", 30638,
            "HTTP port of the status page (/ and /status.json); 0 picks a free port.");
    public static final Setting<Path> DATABASE_PATH = Setting.path("dir.database.path",
            Path.of("/var/lib/xtreemfs/dir/database"),
            "Folder of the RocksDB database holding services, address mappings and volumes.");
    public static final Setting<Long> HEARTBEAT_TIMEOUT_MS = Setting.longInteger("dir.heartbeat.timeoutMs",
            30_000, 1, 86_400_000,
            "A service without a heartbeat for longer than this is reported DEAD.");
    public static final Setting<Integer> REGISTRY_QUEUE_CAPACITY = Setting.integer(
            "dir.registry.queueCapacity", 1_000, 1, 1_000_000,
            "Registry calls waiting for the registry stage; more are answered OVERLOADED.");
    public static final Setting<Integer> RPC_PENDING_CALLS_MAX = Setting.integer("dir.rpc.pendingCallsMax",
            10_000, 1, 1_000_000, "RPC calls in progress at once; more are answered OVERLOADED.");

    private static final RocksKvSettings KV_SETTINGS = new RocksKvSettings("dir");
    private static final RpcTlsSettings TLS_SETTINGS = new RpcTlsSettings("dir");
    private static final StatusPageSettings STATUS_SETTINGS = new StatusPageSettings("dir");

    public static final SettingsSchema SCHEMA = SettingsSchema.of("dir", List.of(BIND_ADDRESS, PORT, STATUS_PORT,
            DATABASE_PATH, HEARTBEAT_TIMEOUT_MS, REGISTRY_QUEUE_CAPACITY, RPC_PENDING_CALLS_MAX))
            .plus(KV_SETTINGS.schema()).plus(TLS_SETTINGS.schema()).plus(STATUS_SETTINGS.schema());

    private final Settings settings;

    private DirConfig(Settings settings) {
        this.settings = settings;
    }

    /**
     * Validates the given properties.
     *
     * @throws SettingsException naming every unknown key and every bad value with its key
     */
    public static DirConfig from(Properties properties) throws SettingsException {
        return new DirConfig(SCHEMA.validate(properties));
    }

    /** Wraps settings already validated by {@link #SCHEMA} (as the launcher hands them over). */
    public static DirConfig of(Settings settings) {
        if (settings.schema() != SCHEMA) {
            throw new IllegalArgumentException("settings of schema " + settings.schema().name()
                    + " are not DIR settings");
        }
        return new DirConfig(settings);
    }

    /** Reads {@code configFile} (may be null), applies the overrides and validates the result. */
    public static DirConfig load(Path configFile, Map<String, String> overrides) throws SettingsException {
        return from(SettingsSchema.load(configFile, overrides));
    }

    /** Loopback, free ports, a small cache and the database in {@code databasePath}: for in-process tests. */
    public static DirConfig forTesting(Path databasePath) {
        return forTesting(databasePath, Map.of());
    }

    /** {@link #forTesting(Path)} with further settings, e.g. a short heartbeat timeout. */
    public static DirConfig forTesting(Path databasePath, Map<String, String> overrides) {
        Properties properties = new Properties();
        properties.setProperty(BIND_ADDRESS.key(), "127.0.0.1");
        properties.setProperty(PORT.key(), "0");
        properties.setProperty(STATUS_PORT.key(), "0");
        properties.setProperty(DATABASE_PATH.key(), databasePath.toString());
        properties.setProperty("dir.kv.blockCacheBytes", "8MiB");
        overrides.forEach(properties::setProperty);
        try {
            return from(properties);
        } catch (SettingsException e) {
            throw new IllegalArgumentException("test configuration is invalid: " + e.getMessage(), e);
        }
    }

    public String bindAddress() {
        return settings.get(BIND_ADDRESS);
    }

    public int port() {
        return settings.get(PORT);
    }

    public int statusPort() {
        return settings.get(STATUS_PORT);
    }

    public Path databasePath() {
        return settings.get(DATABASE_PATH);
    }

    public long heartbeatTimeoutMs() {
        return settings.get(HEARTBEAT_TIMEOUT_MS);
    }

    public int registryQueueCapacity() {
        return settings.get(REGISTRY_QUEUE_CAPACITY);
    }

    public int rpcPendingCallsMax() {
        return settings.get(RPC_PENDING_CALLS_MAX);
    }

    public RocksKvOptions kvOptions() {
        return KV_SETTINGS.options(settings, databasePath());
    }

    /** The RPC port's TLS (dir.tls.*), when a certificate is set; an IllegalArgumentException names a bad setting. */
    public Optional<RpcTls> rpcTls() {
        return TLS_SETTINGS.server(settings);
    }

    /** The status port's limits (dir.status.*). */
    public StatusPageServer.Limits statusLimits() {
        return STATUS_SETTINGS.limits(settings);
    }

    /** The validated settings, for --print-settings and the status page. */
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return settings.toString();
    }
}
