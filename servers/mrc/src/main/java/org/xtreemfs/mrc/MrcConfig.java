package org.xtreemfs.mrc;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.xtreemfs.foundation.capability.CapabilitySecret;
import org.xtreemfs.foundation.rpc.RpcTls;
import org.xtreemfs.foundation.rpc.RpcUrl;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.foundation.rpc.RpcTlsSettings;
import org.xtreemfs.foundation.status.StatusPageServer;
import org.xtreemfs.foundation.status.StatusPageSettings;
import org.xtreemfs.foundation.config.HostPort;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingTypes;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.config.SettingsSchema;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvSettings;
import org.xtreemfs.mrc.metadata.AtimePolicy;

/**
 * The MRC's settings, each declared once with type, bounds, default and description; etc/mrcconfig.properties
 * documents the same keys. A {@code MrcConfig} exists only for valid settings.
 */
public final class MrcConfig {
    /** The same default as the OSD's, so a local cluster works out of the box; change it in production. */
    public static final Setting<String> UUID = new Setting<>("mrc.uuid", SettingTypes.string(true), "",
            "service UUID at the DIR; empty = generated once and kept in the database");
    public static final Setting<String> NAME = Setting.string("mrc.name", "mrc",
            "human-readable service name registered at the DIR");
    public static final Setting<String> BIND_ADDRESS = Setting.string("mrc.bindAddress", "0.0.0.0",
            "address the RPC and status servers bind to");
    public static final Setting<Integer> PORT = Setting.port("mrc.port", 32636, "RPC port (0 = any free port)");
    public static final Setting<Integer> STATUS_PORT = Setting.port("mrc.status.port", 30636,
            "HTTP status page port (0 = any free port)");
    public static final Setting<String> ADVERTISED_ADDRESS = new Setting<>("mrc.advertisedAddress",
            SettingTypes.string(true), "",
            "host clients use to reach this MRC (registered at the DIR); empty = the listen address,"
                    + " or when that is 0.0.0.0 this host's first address other hosts can reach");
    public static final Setting<Path> DATABASE_PATH = Setting.path("mrc.database.path",
            Path.of("/var/lib/xtreemfs/mrc/database"), "folder of the MRC's RocksDB database");
    public static final Setting<Boolean> DATABASE_SYNC_WRITES = Setting.bool("mrc.database.syncWrites", false,
            "fsync the database log before answering each change (survives power loss, slower)");
    public static final Setting<RpcUrl> DIR_ADDRESS = new Setting<>("mrc.dir.address", RpcUrl.SETTING_TYPE,
            RpcUrl.of(new HostPort("localhost", 32638)), "the DIR service: host:port, or pbrpcs://host:port for a"
                    + " TLS DIR and pbrpc://host:port for a plain one (without a scheme: as this MRC's own RPC port)");
    public static final Setting<Long> DIR_TIMEOUT_MS = Setting.longInteger("mrc.dir.timeoutMs", 10_000, 100,
            600_000, "timeout of each call to the DIR, in milliseconds");
    public static final Setting<Long> HEARTBEAT_PERIOD_MS = Setting.longInteger("mrc.heartbeat.periodMs", 5_000, 10,
            3_600_000, "how often the MRC re-registers at the DIR (its heartbeat), in milliseconds");
    public static final Setting<Long> CAPABILITY_TIMEOUT_MS = Setting.longInteger("mrc.capability.timeoutMs",
            600_000, 1_000, 86_400_000, "lifetime of an issued XCap, in milliseconds; a reservation, weight or limit changed online"
                    + " reaches the OSDs within this minus the clients' renew margin (servers/mrc/README.md)");
    public static final Setting<Integer> METADATA_QUEUE_CAPACITY = Setting.integer("mrc.metadata.queueCapacity",
            10_000, 1, 1_000_000, "operations that may wait for the metadata thread before OVERLOADED");
    public static final Setting<Long> OUTCOMES_RETENTION_MS = Setting.longInteger("mrc.outcomes.retentionMs",
            300_000, 1_000, 86_400_000, "how long the outcome of a change that named its client and request number is"
                    + " kept, in milliseconds, so a repeat of it is answered with that outcome instead of applied again;"
                    + " must exceed the clients' retry window plus one request timeout (servers/mrc/README.md,"
                    + " \"Exactly-once retries\")");
    public static final Setting<Long> OUTCOMES_RECORDS_MAX = Setting.longInteger("mrc.outcomes.recordsMax",
            1_000_000, 1_000, 10_000_000, "most outcomes kept at once (the oldest go first, even inside their"
                    + " retention); a repeat whose outcome is gone is applied again; each kept outcome also holds about"
                    + " 20 bytes of the MRC's heap (their recording order), 20 MB at the default");
    public static final Setting<Long> RECOVERY_FILL_TIMEOUT_MS = Setting.longInteger("mrc.recovery.fillTimeoutMs",
            3_600_000, 1_000, 86_400_000, "how long the MRC waits for an OSD to fill a dead chain member's replacement"
                    + " (one OSD_FILL_REPLICA), in milliseconds; give it the largest file's size over the OSDs'"
                    + " osd.replication.fillBytesPerSecond and some (servers/mrc/README.md, \"Chain re-formation\")");
    public static final Setting<Long> RECOVERY_FILL_RETRY_DELAY_MS = Setting.longInteger(
            "mrc.recovery.fillRetryDelayMs", 5_000, 10, 3_600_000, "the wait before a failed fill of a replacement"
                    + " replica is tried again, in milliseconds (at most 10 attempts; then it stays filling until"
                    + " the next round of mrc.recovery.checkPeriodMs starts it again)");
    public static final Setting<Long> DELETION_BATCH_DELAY_MS = Setting.longInteger("mrc.deletion.batchDelayMs", 100,
            0, 60_000, "how long the MRC gathers deleted files before it sends their OSDs one OSD_DELETE_FILES each, in"
                    + " milliseconds (servers/mrc/README.md, \"Deletion\"); unlink does not wait for it, and each"
                    + " round costs an OSD one synced write, so longer rounds cost less per file");
    public static final Setting<Long> DELETION_RETRY_DELAY_MS = Setting.longInteger("mrc.deletion.retryDelayMs",
            5_000, 10, 3_600_000, "the rest after a round of deletions in which an OSD failed (down, OVERLOADED), in"
                    + " milliseconds; its files stay recorded and are sent again until it takes them");
    public static final Setting<Long> RECOVERY_CHECK_PERIOD_MS = Setting.longInteger("mrc.recovery.checkPeriodMs",
            10_000, 0, 3_600_000, "how often the MRC looks for replica work left (a replacement whose fill does not"
                    + " run, a chain left short by a failure that an online OSD can now top up), in milliseconds; 0:"
                    + " only once after the start, which resumes the fills a restart interrupted (servers/mrc/README.md,"
                    + " \"Chain re-formation\")");
    public static final Setting<Integer> RECOVERY_CHECK_FILES_MAX = Setting.integer("mrc.recovery.checkFilesMax", 64,
            1, 100_000, "the most files one round of that check looks at (the next round goes on after the last one)");
    public static final Setting<Long> PLACEMENT_FREE_SPACE_MIN_BYTES = Setting.byteSize(
            "mrc.placement.freeSpaceMinBytes", 64L << 20, 0, Long.MAX_VALUE,
            "OSDs with less free space are not chosen for new files (OSDs not reporting space are)");
    public static final Setting<Long> PLACEMENT_OSD_CACHE_TTL_MS = Setting.longInteger("mrc.placement.osdCacheTtlMs",
            1_000, 0, 600_000, "how long the DIR's OSD list is reused for placement and statvfs, in milliseconds");
    public static final Setting<Boolean> PLACEMENT_BEST_EFFORT_ON_TYPED_OSDS = Setting.bool(
            "mrc.placement.bestEffortOnTypedOsds", false,
            "whether files of volumes without a reservation may also go to typed OSDs (sequential, random), "
                    + "where the fair queue gives them only what reservations leave");

    public static final Setting<AtimePolicy> ATIME_POLICY = Setting.enumeration("mrc.atime.policy",
            AtimePolicy.class, AtimePolicy.RELATIME, "when an open for reading or a directory listing sets atime");

    public static final Setting<Boolean> IDENTITY_FROM_CERTIFICATE = Setting.bool("mrc.identity.fromCertificate",
            false, "take each caller's user and groups from its TLS client certificate (CN: user name, UID: uid,"
                    + " OU: gid, further OUs: supplementary gids) instead of the credentials its requests state;"
                    + " needs mrc.tls.requireClientCertificate");

    private static final RpcTlsSettings TLS_SETTINGS = new RpcTlsSettings("mrc");
    private static final StatusPageSettings STATUS_SETTINGS = new StatusPageSettings("mrc");
    /** The RocksDB store's sizes (mrc.kv.*), declared once in foundation as for the DIR. */
    private static final RocksKvSettings KV_SETTINGS = new RocksKvSettings("mrc");

    public static final SettingsSchema SCHEMA = SettingsSchema.of("mrc", UUID, NAME, BIND_ADDRESS, PORT,
            STATUS_PORT, ADVERTISED_ADDRESS, DATABASE_PATH, DATABASE_SYNC_WRITES, DIR_ADDRESS, DIR_TIMEOUT_MS,
            HEARTBEAT_PERIOD_MS, CAPABILITY_TIMEOUT_MS, CapabilitySecret.INLINE, CapabilitySecret.FILE, METADATA_QUEUE_CAPACITY,
            OUTCOMES_RETENTION_MS, OUTCOMES_RECORDS_MAX, RECOVERY_FILL_TIMEOUT_MS, RECOVERY_FILL_RETRY_DELAY_MS,
            DELETION_BATCH_DELAY_MS, DELETION_RETRY_DELAY_MS,
            RECOVERY_CHECK_PERIOD_MS, RECOVERY_CHECK_FILES_MAX, PLACEMENT_FREE_SPACE_MIN_BYTES, PLACEMENT_OSD_CACHE_TTL_MS, PLACEMENT_BEST_EFFORT_ON_TYPED_OSDS, ATIME_POLICY,
            IDENTITY_FROM_CERTIFICATE).plus(KV_SETTINGS.schema()).plus(TLS_SETTINGS.schema())
            .plus(STATUS_SETTINGS.schema());

    private final Settings settings;

    /** @param settings validated against {@link #SCHEMA} */
    public MrcConfig(Settings settings) {
        if (!settings.schema().name().equals(SCHEMA.name())) {
            throw new IllegalArgumentException("settings of " + settings.schema().name() + " given to the MRC");
        }
        this.settings = settings;
    }

    /** Validates properties (unknown keys and bad values fail, each named). */
    public static MrcConfig fromProperties(Properties properties) throws SettingsException {
        return new MrcConfig(SCHEMA.validate(properties));
    }

    /** For tests and embedding: defaults plus the given keys. */
    public static MrcConfig of(Map<String, String> values) throws SettingsException {
        Properties properties = new Properties();
        properties.putAll(values);
        return fromProperties(properties);
    }

    public Settings settings() {
        return settings;
    }

    public String uuid() {
        return settings.get(UUID);
    }

    public String name() {
        return settings.get(NAME);
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

    public String advertisedAddress() {
        return settings.get(ADVERTISED_ADDRESS);
    }

    public Path databasePath() {
        return settings.get(DATABASE_PATH);
    }

    /** The store's options: {@link #databasePath()} with the mrc.kv.* sizes. */
    public RocksKvOptions kvOptions() {
        return KV_SETTINGS.options(settings, databasePath());
    }

    public boolean databaseSyncWrites() {
        return settings.get(DATABASE_SYNC_WRITES);
    }

    public RpcUrl dirAddress() {
        return settings.get(DIR_ADDRESS);
    }

    /** The DIR to call, by the scheme its address gives or else by this server's own port's scheme. */
    public ServiceAddress dirServiceAddress() {
        return dirAddress().socketAddress(TLS_SETTINGS.scheme(settings));
    }

    public long dirTimeoutMs() {
        return settings.get(DIR_TIMEOUT_MS);
    }

    public long heartbeatPeriodMs() {
        return settings.get(HEARTBEAT_PERIOD_MS);
    }

    public long capabilityTimeoutMs() {
        return settings.get(CAPABILITY_TIMEOUT_MS);
    }

    public String capabilitySecret() {
        return CapabilitySecret.of(settings);
    }

    /** The RPC port's TLS (mrc.tls.*), when a certificate is set; an IllegalArgumentException names a bad setting. */
    public Optional<RpcTls> rpcTls() {
        return TLS_SETTINGS.server(settings);
    }

    /** The TLS of the MRC's own calls to TLS servers (the DIR, the OSDs), when mrc.tls.* sets a CA. */
    public Optional<RpcTls> outgoingTls() {
        return TLS_SETTINGS.client(settings);
    }

    /**
     * Whether callers' identities come from their client certificates; on, it needs client certificates required
     * (else a caller without one would be nobody in particular).
     */
    public boolean identityFromCertificate() {
        boolean on = settings.get(IDENTITY_FROM_CERTIFICATE);
        if (on && !TLS_SETTINGS.requireClientCertificate(settings)) {
            throw new IllegalArgumentException(IDENTITY_FROM_CERTIFICATE.key() + " is on but mrc.tls.certificateFile"
                    + " and mrc.tls.requireClientCertificate are not both set: identities from certificates need"
                    + " TLS with client certificates required");
        }
        return on;
    }

    /** The status port's limits (mrc.status.*). */
    public StatusPageServer.Limits statusLimits() {
        return STATUS_SETTINGS.limits(settings);
    }

    public AtimePolicy atimePolicy() {
        return settings.get(ATIME_POLICY);
    }

    public int metadataQueueCapacity() {
        return settings.get(METADATA_QUEUE_CAPACITY);
    }

    public long outcomesRetentionMs() {
        return settings.get(OUTCOMES_RETENTION_MS);
    }

    public long outcomesRecordsMax() {
        return settings.get(OUTCOMES_RECORDS_MAX);
    }

    public long placementFreeSpaceMinBytes() {
        return settings.get(PLACEMENT_FREE_SPACE_MIN_BYTES);
    }

    public long recoveryFillTimeoutMs() {
        return settings.get(RECOVERY_FILL_TIMEOUT_MS);
    }

    public long recoveryFillRetryDelayMs() {
        return settings.get(RECOVERY_FILL_RETRY_DELAY_MS);
    }

    public long deletionBatchDelayMs() {
        return settings.get(DELETION_BATCH_DELAY_MS);
    }

    public long deletionRetryDelayMs() {
        return settings.get(DELETION_RETRY_DELAY_MS);
    }

    public long recoveryCheckPeriodMs() {
        return settings.get(RECOVERY_CHECK_PERIOD_MS);
    }

    public int recoveryCheckFilesMax() {
        return settings.get(RECOVERY_CHECK_FILES_MAX);
    }

    public long placementOsdCacheTtlMs() {
        return settings.get(PLACEMENT_OSD_CACHE_TTL_MS);
    }

    public boolean placementBestEffortOnTypedOsds() {
        return settings.get(PLACEMENT_BEST_EFFORT_ON_TYPED_OSDS);
    }

}
