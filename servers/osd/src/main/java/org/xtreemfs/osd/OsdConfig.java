package org.xtreemfs.osd;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.xtreemfs.osd.calibration.ProfileFile;
import org.xtreemfs.osd.stages.BufferedWritePacingMode;
import org.xtreemfs.osd.stages.QueueingPolicyKind;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.osd.storage.LogStructuredStore;
import org.xtreemfs.osd.storage.StorageLayout;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdUsageType;

/** The OSD's settings, each declared once with type, bounds, default and description; immutable. */
public final class OsdConfig {
    /** The MRC's default too, so a local cluster works out of the box; change it in production. */
    public static final Setting<String> UUID = new Setting<>("osd.uuid", SettingTypes.string(true), "",
            "this OSD's UUID; empty: generated once and kept in <osd.object.path>/osd-uuid");
    public static final Setting<String> BIND_ADDRESS = Setting.string("osd.bindAddress", "0.0.0.0",
            "local address the RPC and status ports bind to");
    public static final Setting<String> ADVERTISED_ADDRESS = new Setting<>("osd.advertisedAddress",
            SettingTypes.string(true), "",
            "host name or IP registered at the DIR for clients; empty: osd.bindAddress,"
                    + " or when that is 0.0.0.0 this host's first address other hosts can reach");
    public static final Setting<Integer> PORT = Setting.port("osd.port", 32640, "RPC port (0: any free port)");
    public static final Setting<Integer> STATUS_PORT = Setting.port("osd.status.port", 30640,
            "HTTP status page port (0: any free port)");
    public static final Setting<RpcUrl> DIR_ADDRESS = new Setting<>("osd.dir.address", RpcUrl.SETTING_TYPE,
            RpcUrl.of(new HostPort("localhost", 32638)), "the DIR this OSD registers at and sends heartbeats to:"
                    + " host:port, or pbrpcs://host:port for a TLS DIR and pbrpc://host:port for a plain one (without a"
                    + " scheme: as this OSD's own RPC port)");
    public static final Setting<Path> OBJECT_PATH = Setting.path("osd.object.path", Path.of("/var/lib/xtreemfs/osd"),
            "data folder: objects, the metadata store (with the deletion queue) and the generated UUID");
    public static final Setting<Long> OBJECT_CAPACITY_BYTES = Setting.byteSize("osd.object.capacityBytes", 0, 0,
            Long.MAX_VALUE, "bytes this OSD offers for reservations (at most its file system's size); set it when"
                    + " several OSDs share one file system so that they do not each offer all of it; 0: the file"
                    + " system's size");
    /**
     * As many as the QoS stage releases at once on a parallel device ({@link #QOS_IN_FLIGHT_MAX_PARALLEL}), so no
     * released request waits in the storage queue for a thread: each blocks on its own disk read. Measured on this
     * machine's virtual disk (issue 10, cold reads of 8,192 files of 128 KiB, i.e. objects, by N threads with fio):
     * 189 MiB/s with 8 threads, 424 with 16, 479 with 32; one file read with O_DIRECT 128 KiB at queue depth 8, 16
     * and 32: 236, 509 and 682 MiB/s. With 8 threads a cold sequential read through the mount kept 1 MiB at the disk.
     */
    static final int STORAGE_THREADS_DEFAULT = 16;
    public static final Setting<Integer> STORAGE_THREADS = Setting.integer("osd.storage.threads",
            STORAGE_THREADS_DEFAULT, 1, 256,
            "storage threads; reads of a file, and writes to different objects of it, run concurrently;"
                    + " the rest of one file's work in arrival order; each blocks on its own disk access, so"
                    + " they bound the object reads at the disk (at least osd.qos.inFlightMax)");
    public static final Setting<Integer> PREPROCESSING_THREADS = Setting.integer("osd.preprocessing.threads", 0,
            0, 64, "threads checking capabilities; 0 checks on the network thread (no hand-off per request)");
    public static final Setting<Integer> PREPROCESSING_QUEUE_CAPACITY = Setting.integer(
            "osd.preprocessing.queueCapacity", 1000, 1, 1_000_000,
            "requests waiting for the capability check (with osd.preprocessing.threads > 0); more are rejected"
                    + " with OVERLOADED");
    public static final Setting<Integer> QOS_QUEUE_CAPACITY = Setting.integer("osd.qos.queueCapacity", 1000, 1,
            1_000_000, "requests waiting in the QoS stage; more are rejected with OVERLOADED");
    /** {@link #qosInFlightMax()} for an emulated HDD: its one head serves in arrival order (see there). */
    static final int QOS_IN_FLIGHT_MAX_SINGLE_HEAD = 2;
    /** {@link #qosInFlightMax()} otherwise: enough to keep a parallel device (SSD, host-cached disk) busy. */
    static final int QOS_IN_FLIGHT_MAX_PARALLEL = 16;
    public static final Setting<Integer> QOS_IN_FLIGHT_MAX = Setting.integer("osd.qos.inFlightMax", 0, 0, 4096,
            "requests the QoS stage releases to storage at once (small: the QoS order is the disk's order; "
                    + "0: " + QOS_IN_FLIGHT_MAX_SINGLE_HEAD + " on an emulated HDD, " + QOS_IN_FLIGHT_MAX_PARALLEL
                    + " otherwise; set 1-2 on a real HDD)");
    public static final Setting<Integer> QOS_VOLUME_QUEUE_CAPACITY = Setting.integer("osd.qos.volumeQueueCapacity",
            250, 1, 1_000_000, "requests of one volume waiting in the QoS stage (fair policy; at most"
                    + " osd.qos.queueCapacity); more are rejected with OVERLOADED, so one volume cannot fill the queue");
    public static final Setting<QueueingPolicyKind> QOS_POLICY = Setting.enumeration("osd.qos.policy",
            QueueingPolicyKind.class, QueueingPolicyKind.FAIR, "order of the QoS stage: fair (per-volume fair queue:"
                    + " the reservation, weight and limit in the capability, the rest shared by weight, cold volumes"
                    + " last) or fifo (arrival order, for comparisons)");
    public static final Setting<BufferedWritePacingMode> QOS_BUFFERED_WRITE_PACING = Setting.enumeration(
            "osd.qos.bufferedWritePacing", BufferedWritePacingMode.class, BufferedWritePacingMode.AUTO,
            "fair policy only: admit unsynced writes (acknowledged from the host's write-back) at the device's rate"
                    + " in the cost unit, in the fair order, so the write-back never holds more device time than the"
                    + " fair queue gave out (on, off; auto: on when the profile comes from a calibration file or an"
                    + " emulated model, off for the device class's built-in guess)");
    public static final Setting<Long> HEARTBEAT_PERIOD_MS = Setting.longInteger("osd.heartbeat.periodMs", 5000,
            100, 3_600_000, "period of re-registering at the DIR with space and load (the heartbeat)");
    public static final Setting<Long> DELETION_DELAY_MS = Setting.longInteger("osd.deletion.delayMs", 60_000, 0,
            30L * 24 * 3_600_000, "grace period between OSD_UNLINK and deleting the objects (open files stay readable)");
    public static final Setting<Integer> DELETION_PENDING_MAX = Setting.integer("osd.deletion.pendingMax",
            1_000_000, 1, 100_000_000, "files waiting for deletion; more unlinks are rejected with OVERLOADED");
    public static final Setting<Integer> DELETED_VOLUME_FILES_PER_HEARTBEAT = Setting.integer(
            "osd.deletion.deletedVolumeFilesPerHeartbeat", 1000, 1, 1_000_000,
            "files of deleted volumes (named by the DIR with each heartbeat) queued for deletion per heartbeat");
    public static final Setting<OsdUsageType> USAGE_TYPE = Setting.enumeration("osd.usage.type",
            OsdUsageType.class, OsdUsageType.BEST_EFFORT, "reservation type this OSD serves");
    public static final Setting<DeviceClass> DEVICE_CLASS = Setting.enumeration("osd.device.class",
            DeviceClass.class, DeviceClass.HDD,
            "device class of the object folder's disk; with osd.device.emulation the emulated model's class instead");
    public static final Setting<DeviceEmulation> DEVICE_EMULATION = Setting.enumeration("osd.device.emulation",
            DeviceEmulation.class, DeviceEmulation.NONE,
            "storage behaves like this device model (each object access held for its service time); none: the real disk");
    public static final Setting<StorageLayout> STORAGE_LAYOUT = Setting.enumeration("osd.storage.layout",
            StorageLayout.class, StorageLayout.ROLE, "object layout on disk: role (by each file's replica role: log"
                    + " on the tail of a chain, conventional otherwise; a file keeps the layout it was first written"
                    + " with on this OSD), conventional (a file per object, for every file) or log (appends in write"
                    + " order plus an index, random writes become sequential, for every file); conventional and log"
                    + " are fixed for the life of the object folder, role reads a folder written with either");
    public static final Setting<Integer> STORAGE_OPEN_FILES_MAX = Setting.integer("osd.storage.openFilesMax", 4096, 0,
            100_000, "conventional layout (and the conventional part of role): object files kept open between accesses, least recently used closed first"
                    + " (an access then costs no open and close); 0 opens and closes the file on every access. Each is"
                    + " a file descriptor: at most a quarter of the process limit (ulimit -Hn) is used");
    public static final Setting<Integer> STORAGE_INLINE_BYTES_MAX = Setting.integer("osd.storage.inlineBytesMax",
            32768, 0, 1 << 20, "reads and unsynced writes of unreplicated files up to this many bytes run on the network"
                    + " thread that received them rather than on a storage thread (two thread hand-offs less per"
                    + " request); three in a row that wait for the disk (over 100 us each) send the next ones to the storage threads for 50 ms;"
                    + " 0: every request goes to the storage threads. Never with osd.device.emulation");
    public static final Setting<Long> STORAGE_READ_AHEAD_BYTES = Setting.byteSize("osd.storage.readAheadBytes",
            16L << 20, 0, 1L << 30, "conventional layout: a read that reaches its object's end close after another"
                    + " of the file (a sequential stream) has the file's next objects on this OSD up to this many bytes"
                    + " ahead read into the page cache in the background (each object is a file, and the kernel's"
                    + " read-ahead stops at its end); 0: off. Never with osd.device.emulation");
    public static final Setting<Long> STORAGE_LOG_SEGMENT_BYTES = Setting.byteSize("osd.storage.log.segmentBytes",
            64L << 20, 1L << 20, 1L << 36, "log layout: size of one log segment file, the unit of compaction");
    public static final Setting<Integer> STORAGE_LOG_DEAD_PERCENT_MAX = Setting.integer(
            "osd.storage.log.deadPercentMax", 25, 1, 95, "log layout: compaction runs while overwritten, truncated or"
                    + " deleted bytes exceed this percentage of the sealed segments' bytes (the space bound)");
    public static final Setting<Long> STORAGE_LOG_COMPACTION_BYTES_PER_SECOND = Setting.byteSize(
            "osd.storage.log.compactionBytesPerSecond", 16L << 20, 64L << 10, 1L << 40, "log layout: compaction"
                    + " reads and copies at most this many bytes per second (the bandwidth bound), so it cannot"
                    + " starve foreground I/O");
    public static final Setting<String> PROFILE_PATH = new Setting<>("osd.profile.path", ProfileFile.SETTING_TYPE, "",
            "profile file written by xtreemfs-osd --calibrate, registered at the DIR; empty: the device model's profile");
    public static final Setting<Long> LOCKS_LEASE_MS = Setting.longInteger("osd.locks.leaseMs", 30_000, 500,
            3_600_000, "advisory locks of a client (mount) are dropped when it has not renewed them for this long");
    public static final Setting<Integer> LOCKS_PER_FILE_MAX = Setting.integer("osd.locks.perFileMax", 1024, 1,
            1_000_000, "locks one file may hold on its head OSD; more are refused with ENOLCK");
    public static final Setting<Integer> LOCKS_MAX = Setting.integer("osd.locks.max", 100_000, 1, 100_000_000,
            "locks this OSD holds in memory over all files; more are refused with ENOLCK");
    public static final Setting<Long> REPLICATION_FILL_BYTES_PER_SECOND = Setting.byteSize(
            "osd.replication.fillBytesPerSecond", 16L << 20, 64L << 10, 1L << 40, "a new replica of a file is filled"
                    + " from a live one at most this many bytes per second (unless OSD_FILL_REPLICA names a rate), as a"
                    + " best-effort flow of the fair queue");
    public static final Setting<Integer> REPLICATION_FILLS_MAX = Setting.integer("osd.replication.fillsMax", 4, 1,
            256, "replica fills this OSD runs at once (as many more wait); more are refused with OVERLOADED");
    public static final Setting<Integer> HEALTH_STORAGE_FAILURES_MAX = Setting.integer(
            "osd.health.storageFailuresMax", 5, 0, 1_000_000, "storage I/O failures of requests within 60 s after which"
                    + " this OSD's storage counts as failing until it restarts: it registers at the DIR as"
                    + " TO_BE_REMOVED and leaves its chains (servers/osd/README.md, \"Failure and re-formation\");"
                    + " 0: never");
    private static final RpcTlsSettings TLS_SETTINGS = new RpcTlsSettings("osd");
    private static final StatusPageSettings STATUS_SETTINGS = new StatusPageSettings("osd");

    public static final SettingsSchema SCHEMA = SettingsSchema.of("osd", List.of(UUID, BIND_ADDRESS,
            ADVERTISED_ADDRESS, PORT, STATUS_PORT, DIR_ADDRESS, OBJECT_PATH, OBJECT_CAPACITY_BYTES, STORAGE_THREADS,
            PREPROCESSING_THREADS,
            PREPROCESSING_QUEUE_CAPACITY, QOS_QUEUE_CAPACITY, QOS_IN_FLIGHT_MAX, QOS_VOLUME_QUEUE_CAPACITY, QOS_POLICY,
            QOS_BUFFERED_WRITE_PACING, HEARTBEAT_PERIOD_MS, DELETION_DELAY_MS, DELETION_PENDING_MAX,
            DELETED_VOLUME_FILES_PER_HEARTBEAT, USAGE_TYPE, DEVICE_CLASS, DEVICE_EMULATION, STORAGE_LAYOUT, STORAGE_OPEN_FILES_MAX,
            STORAGE_READ_AHEAD_BYTES, STORAGE_INLINE_BYTES_MAX,
            STORAGE_LOG_SEGMENT_BYTES, STORAGE_LOG_DEAD_PERCENT_MAX, STORAGE_LOG_COMPACTION_BYTES_PER_SECOND,
            PROFILE_PATH, LOCKS_LEASE_MS, LOCKS_PER_FILE_MAX, LOCKS_MAX, REPLICATION_FILL_BYTES_PER_SECOND,
            REPLICATION_FILLS_MAX, HEALTH_STORAGE_FAILURES_MAX,
            CapabilitySecret.INLINE, CapabilitySecret.FILE)).plus(TLS_SETTINGS.schema())
            .plus(STATUS_SETTINGS.schema());

    private final Settings settings;


    /** @param settings validated against {@link #SCHEMA} */
    public OsdConfig(Settings settings) {
        if (!settings.schema().equals(SCHEMA)) {
            throw new IllegalArgumentException("settings of schema " + settings.schema().name()
                    + " are not OSD settings");
        }
        this.settings = settings;
    }

    /** Reads an optional properties file, applies overrides (-D key=value) and validates everything. */
    public static OsdConfig load(Path configFile, Map<String, String> overrides) throws SettingsException {
        return new OsdConfig(SCHEMA.validate(SettingsSchema.load(configFile, overrides)));
    }

    /** Defaults plus the given values; for tests and in-process servers. */
    public static OsdConfig of(Map<String, String> values) throws SettingsException {
        return load(null, values);
    }

    public Settings settings() {
        return settings;
    }

    /** The RPC port's TLS (osd.tls.*), when a certificate is set; an IllegalArgumentException names a bad setting. */
    public Optional<RpcTls> rpcTls() {
        return TLS_SETTINGS.server(settings);
    }

    /** The TLS of the OSD's own calls to TLS servers (the DIR, the MRC, other OSDs), when osd.tls.* sets a CA. */
    public Optional<RpcTls> outgoingTls() {
        return TLS_SETTINGS.client(settings);
    }

    /** The status port's limits (osd.status.*). */
    public StatusPageServer.Limits statusLimits() {
        return STATUS_SETTINGS.limits(settings);
    }

    /** The configured UUID, empty when it is to be generated. */
    public String uuid() {
        return settings.get(UUID);
    }

    public String bindAddress() {
        return settings.get(BIND_ADDRESS);
    }

    public String advertisedAddress() {
        return settings.get(ADVERTISED_ADDRESS);
    }

    public int port() {
        return settings.get(PORT);
    }

    public int statusPort() {
        return settings.get(STATUS_PORT);
    }

    public RpcUrl dirAddress() {
        return settings.get(DIR_ADDRESS);
    }

    /** The DIR to call, by the scheme its address gives or else by this server's own port's scheme. */
    public ServiceAddress dirServiceAddress() {
        return dirAddress().socketAddress(TLS_SETTINGS.scheme(settings));
    }

    public Path objectPath() {
        return settings.get(OBJECT_PATH);
    }

    /** The bytes this OSD offers for reservations; 0 when it offers its file system's size. */
    public long objectCapacityBytes() {
        return settings.get(OBJECT_CAPACITY_BYTES);
    }

    public int storageThreads() {
        return settings.get(STORAGE_THREADS);
    }

    public int preprocessingThreads() {
        return settings.get(PREPROCESSING_THREADS);
    }

    public int preprocessingQueueCapacity() {
        return settings.get(PREPROCESSING_QUEUE_CAPACITY);
    }

    public int qosQueueCapacity() {
        return settings.get(QOS_QUEUE_CAPACITY);
    }

    /**
     * Requests released to storage at once. Every request released is out of the fair queue's hands: on a
     * device with one head the requests already released are served in arrival order, so with 16 released a
     * reserved volume waits behind up to 16 of a flooding neighbour's and the fair order is lost (measured
     * through FUSE on an emulated HDD: 67 % of a reservation with 16, 154-200 % with 2;
     * tests/system/qos_enforcement_e2e.sh). A parallel device needs more in flight to be busy.
     */
    public int qosInFlightMax() {
        int configured = settings.get(QOS_IN_FLIGHT_MAX);
        if (configured > 0) {
            return configured;
        }
        return deviceEmulation().emulated() && deviceClass() == DeviceClass.HDD ? QOS_IN_FLIGHT_MAX_SINGLE_HEAD
                : QOS_IN_FLIGHT_MAX_PARALLEL;
    }

    /**
     * Whether the storage stage runs reads of one file, and writes to different objects of it, concurrently: not
     * in the single-head regime ({@link #qosInFlightMax()} at most {@value #QOS_IN_FLIGHT_MAX_SINGLE_HEAD}), where a
     * sequential stream's requests must reach the head in arrival order.
     */
    public boolean storageConcurrentWithinFile() {
        return qosInFlightMax() > QOS_IN_FLIGHT_MAX_SINGLE_HEAD;
    }

    /** Per-volume bound of the fair queue, never above {@link #qosQueueCapacity()}. */
    public int qosVolumeQueueCapacity() {
        return Math.min(settings.get(QOS_VOLUME_QUEUE_CAPACITY), qosQueueCapacity());
    }

    public QueueingPolicyKind qosPolicy() {
        return settings.get(QOS_POLICY);
    }

    public BufferedWritePacingMode qosBufferedWritePacing() {
        return settings.get(QOS_BUFFERED_WRITE_PACING);
    }

    public long heartbeatPeriodMs() {
        return settings.get(HEARTBEAT_PERIOD_MS);
    }

    public long deletionDelayMs() {
        return settings.get(DELETION_DELAY_MS);
    }

    public int deletionPendingMax() {
        return settings.get(DELETION_PENDING_MAX);
    }

    public int deletedVolumeFilesPerHeartbeat() {
        return settings.get(DELETED_VOLUME_FILES_PER_HEARTBEAT);
    }

    public OsdUsageType usageType() {
        return settings.get(USAGE_TYPE);
    }

    /**
     * The device class: the emulated model's when {@code osd.device.emulation} is set (the configured
     * {@code osd.device.class} is then ignored, and the OSD logs a warning when it differs), else the configured one.
     */
    public DeviceClass deviceClass() {
        DeviceEmulation emulation = deviceEmulation();
        return emulation.emulated() ? emulation.deviceClass() : settings.get(DEVICE_CLASS);
    }

    /** The configured {@code osd.device.class}, whatever the emulation. */
    public DeviceClass configuredDeviceClass() {
        return settings.get(DEVICE_CLASS);
    }

    public StorageLayout storageLayout() {
        return settings.get(STORAGE_LAYOUT);
    }

    public int storageOpenFilesMax() {
        return settings.get(STORAGE_OPEN_FILES_MAX);
    }

    /** See {@link #STORAGE_READ_AHEAD_BYTES}: 0 with an emulated device, whose model would not see those reads. */
    public long storageReadAheadBytes() {
        return deviceEmulation().emulated() ? 0 : settings.get(STORAGE_READ_AHEAD_BYTES);
    }

    /** See {@link #STORAGE_INLINE_BYTES_MAX}: 0 with an emulated device, whose model waits out each access's time. */
    public int storageInlineBytesMax() {
        return deviceEmulation().emulated() ? 0 : settings.get(STORAGE_INLINE_BYTES_MAX);
    }

    /** The log layout's segment size and dead-bytes bound. */
    public LogStructuredStore.Options logOptions() {
        return new LogStructuredStore.Options(settings.get(STORAGE_LOG_SEGMENT_BYTES),
                settings.get(STORAGE_LOG_DEAD_PERCENT_MAX));
    }

    public long logCompactionBytesPerSecond() {
        return settings.get(STORAGE_LOG_COMPACTION_BYTES_PER_SECOND);
    }

    public DeviceEmulation deviceEmulation() {
        return settings.get(DEVICE_EMULATION);
    }

    /** The calibrated profile file to register; empty when the device model's profile is registered. */
    public java.util.Optional<Path> profilePath() {
        String path = settings.get(PROFILE_PATH);
        return path.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(Path.of(path));
    }

    public long locksLeaseMs() {
        return settings.get(LOCKS_LEASE_MS);
    }

    public int locksPerFileMax() {
        return settings.get(LOCKS_PER_FILE_MAX);
    }

    public long replicationFillBytesPerSecond() {
        return settings.get(REPLICATION_FILL_BYTES_PER_SECOND);
    }

    public int replicationFillsMax() {
        return settings.get(REPLICATION_FILLS_MAX);
    }

    public int healthStorageFailuresMax() {
        return settings.get(HEALTH_STORAGE_FAILURES_MAX);
    }

    public int locksMax() {
        return settings.get(LOCKS_MAX);
    }

    public String capabilitySecret() {
        return CapabilitySecret.of(settings);
    }

    /** Every effective value, with secrets masked by {@link Settings#toString()}: safe to log. */
    @Override
    public String toString() {
        return settings.toString();
    }
}
