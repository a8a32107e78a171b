package org.xtreemfs.osd;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.launcher.RunningServer;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.AdvertisedAddress;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.status.StatusPageServer;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.osd.replication.ChainForwarder;
import org.xtreemfs.osd.replication.MrcXLocSource;
import org.xtreemfs.osd.replication.XLocConfirmations;
import org.xtreemfs.osd.replication.XLocVersions;
import org.xtreemfs.osd.stages.StorageHealth;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.osd.OsdInterface;
import org.xtreemfs.interfaces.osd.OsdProcedure;
import org.xtreemfs.osd.heartbeat.DirHeartbeat;
import org.xtreemfs.osd.metrics.VolumeAccounting;
import org.xtreemfs.osd.metrics.VolumeHistory;
import org.xtreemfs.osd.metrics.VolumeMetrics;
import org.xtreemfs.osd.ops.CopyObjectOp;
import org.xtreemfs.osd.ops.DeleteFilesOp;
import org.xtreemfs.osd.ops.FillReplicaOp;
import org.xtreemfs.osd.ops.FsyncOp;
import org.xtreemfs.osd.replication.ReplicaFiller;
import org.xtreemfs.osd.locks.LockManager;
import org.xtreemfs.osd.ops.GetFileSizeOp;
import org.xtreemfs.osd.ops.LockAcquireOp;
import org.xtreemfs.osd.ops.LockCheckOp;
import org.xtreemfs.osd.ops.LockReleaseOp;
import org.xtreemfs.osd.ops.LockRenewOp;
import org.xtreemfs.osd.ops.PingOp;
import org.xtreemfs.osd.ops.ReadOp;
import org.xtreemfs.osd.ops.TruncateOp;
import org.xtreemfs.osd.ops.UnlinkOp;
import org.xtreemfs.osd.ops.WriteOp;
import org.xtreemfs.osd.stages.DeletionScheduler;
import org.xtreemfs.osd.stages.ExecutorWakeUps;
import org.xtreemfs.osd.stages.LockService;
import org.xtreemfs.osd.stages.PreprocessingStage;
import org.xtreemfs.osd.stages.QosStage;
import org.xtreemfs.osd.stages.QueueingPolicyKind;
import org.xtreemfs.osd.stages.StorageStage;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.DeletionQueue;
import org.xtreemfs.osd.storage.VolumeReaper;
import org.xtreemfs.osd.calibration.ProfileFile;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.osd.storage.EmulatedDevice;
import org.xtreemfs.osd.storage.LogCompactor;
import org.xtreemfs.osd.storage.LogStructuredStore;
import org.xtreemfs.osd.storage.ObjectStorage;
import org.xtreemfs.osd.storage.OsdUuidFile;
import org.xtreemfs.osd.storage.StorageDevice;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StorageLayout;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.wfq.BufferedWritePacing;
import org.xtreemfs.qos.wfq.FairPolicy;
import org.xtreemfs.qos.wfq.FifoPolicy;
import org.xtreemfs.qos.wfq.QueueBounds;
import org.xtreemfs.qos.wfq.QueueingPolicy;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.qos.wfq.ShareRule;

/**
 * Wires the OSD: RPC ops → preprocessing → QoS → storage, the deletion scheduler, the DIR heartbeat and
 * the status page. No logic of its own. Usable in-process: {@link #start()} returns the bound addresses,
 * {@link #close()} stops everything it started.
 */
public final class OsdServer implements RunningServer {
    private static final Logger LOG = LoggerFactory.getLogger(OsdServer.class);
    /** Where OSDs before the store-based deletion queue kept one file per entry; imported at start. */
    static final String LEGACY_DELETION_QUEUE_FOLDER = "deletion-queue";
    private static final long DIR_CALL_TIMEOUT_MS = 10_000;
    /** How long a chain successor's address is reused before the DIR is asked again (and at once after a failure). */
    private static final long SUCCESSOR_ADDRESS_CACHE_MS = 60_000;
    /** How long the OSD waits for the MRC to confirm a replicated file's XLoc. */
    private static final long MRC_CALL_TIMEOUT_MS = 10_000;
    /** Replicated files whose confirmed XLoc version the OSD keeps (least recently used are confirmed again). */
    private static final int XLOC_VIEWS_MAX = 65_536;
    /** Requests of one file that may wait for its XLoc confirmation; more are OVERLOADED. */
    private static final int XLOC_WAITING_PER_FILE_MAX = 1_024;
    private static final long DELETION_POLL_MS_MAX = 1_000;
    /**
     * Polling the deletion queue every 10 ms (osd.deletion.delayMs = 0, as local clusters run) cost 6 % of a busy
     * OSD's CPU samples in wake-ups alone (perf, 4 KiB fio through the mount); a due deletion may wait this long.
     */
    private static final long DELETION_POLL_MS_MIN = 100;
    private static final int ADDRESS_MAPPING_TTL_S = 3_600;
    /** Volume accounting: 1-s windows (the SLO's), 5 minutes of them, 1024 latency samples per volume. */
    private static final long ACCOUNTING_WINDOW_NANOS = 1_000_000_000L;
    private static final int ACCOUNTING_WINDOWS_KEPT = 300;
    private static final int ACCOUNTING_LATENCY_SAMPLES_KEPT = 1024;
    private static final int ACCOUNTING_VOLUMES_MAX = 4096;
    /**
     * Volumes per DIR heartbeat (about 60 bytes each, so a heartbeat stays a few KiB); beyond it the unreserved
     * volumes with the least achieved are left out and only counted (OsdVolumeAttainment.volumes_omitted).
     */
    static final int HEARTBEAT_VOLUMES_MAX = 64;
    /** The status port's administrative path that changes an emulated device's speed ({@link #changeDeviceSpeed}). */
    public static final String DEVICE_SPEED_PATH = "/device/speed";
    /** The status port's administrative path that switches the QoS stage's policy ({@link #changeQueueingPolicy}). */
    public static final String QOS_POLICY_PATH = "/qos/policy";

    private final OsdConfig config;
    private final Clock clock;
    private final List<AutoCloseable> started = new ArrayList<>();
    private String uuid;
    /** The disk under the store: {@link StorageDevice#NONE} or an {@link EmulatedDevice}. */
    private StorageDevice device;
    private ObjectStorage store;
    private DeletionQueue deletions;
    private StorageStage storage;
    private ChainForwarder chainForwarder;
    private ReplicaFiller replicaFiller;
    /** Loopback and the bound RPC port: where a fill sends its copies; null before the port is bound. */
    private volatile InetSocketAddress selfAddress;
    private XLocConfirmations xlocConfirmations;
    private StorageHealth storageHealth;
    private QosStage qos;
    private VolumeMetrics volumeMetrics;
    private VolumeHistory volumeHistory;
    private PreprocessingStage preprocessing;
    private LockManager locks;
    private RpcServer rpcServer;
    private DirHeartbeat heartbeat;
    private VolumeReaper reaper;
    private Addresses addresses;
    /** The profile registered at the DIR before the folder's capacity cap, and where it comes from. */
    private OsdProfile baseProfile;
    private String profileSource;
    /** True when the profile was measured (calibration file) or derived from the emulated model, not guessed. */
    private boolean profileDescribesDevice;
    /** The policy the QoS stage runs now: osd.qos.policy, or what {@code POST /qos/policy} switched to. */
    private volatile QueueingPolicyKind qosPolicyKind;
    private ShareRule shareRule;
    /** The fair policy's pacing of unsynced writes (osd.qos.bufferedWritePacing), null when off or under FIFO. */
    private volatile BufferedWritePacing bufferedWritePacing;

    /** The addresses the OSD serves on (ports resolved when the configuration asked for port 0). */
    public record Addresses(InetSocketAddress rpc, InetSocketAddress status) {}

    public OsdServer(OsdConfig config) {
        this(config, SystemClock.INSTANCE);
    }

    /** @param clock checks capability expiry and deletion due times; tests pass a ManualClock */
    public OsdServer(OsdConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    /** Opens the data folder, starts every stage and binds the ports. Fails if already started. */
    public synchronized Addresses start() throws IOException, InterruptedException {
        if (addresses != null) {
            throw new IllegalStateException("OSD already started");
        }
        try {
            return startAll();
        } catch (IOException | InterruptedException | RuntimeException e) {
            closeStarted();
            throw e;
        }
    }

    private Addresses startAll() throws IOException, InterruptedException {
        Path dataFolder = config.objectPath();
        PrivateFiles.dataFolder(OsdConfig.OBJECT_PATH.key(), dataFolder);
        uuid = OsdUuidFile.loadOrCreate(dataFolder, config.uuid());
        loadProfile();
        device = config.deviceEmulation().device(clock);
        store = started(config.storageLayout().open(dataFolder, device, config.logOptions(),
                config.storageOpenFilesMax()));
        ObjectStore objectFiles = StorageLayout.conventionalOf(store);
        if (objectFiles != null) {
            objectFiles.readAhead(config.storageReadAheadBytes());
        }
        LogStructuredStore log = StorageLayout.logOf(store);
        if (log != null) {
            started(new LogCompactor(log, config.logCompactionBytesPerSecond()).start());
        }
        deletions = new DeletionQueue(store.metadataStore(), dataFolder.resolve(LEGACY_DELETION_QUEUE_FOLDER),
                clock, config.deletionDelayMs(), config.deletionPendingMax());

        RpcClient rpcClient = started(new RpcClient("osd-" + uuid, FrameLimits.DEFAULT,
                RpcClient.CONNECT_TIMEOUT_MS_DEFAULT, config.outgoingTls().orElse(null)));
        DirServiceClient dir = new DirServiceClient(rpcClient, config.dirServiceAddress(),
                DIR_CALL_TIMEOUT_MS);
        UuidResolver successorAddresses = new UuidResolver(dir, SUCCESSOR_ADDRESS_CACHE_MS, clock::monotonicNanos);
        chainForwarder = new ChainForwarder(new OsdServiceClient(rpcClient, ChainForwarder.FORWARD_TIMEOUT_MS),
                successorAddresses);
        // Doubt every file's chain view after twice the heartbeat period without a heartbeat the DIR accepted: the
        // DIR declares an OSD dead only after dir.heartbeat.timeoutMs (keep it above that), so the MRC cannot have
        // removed this OSD from a chain without this OSD asking again (servers/osd README, "Chain replication").
        // The one record of each file's current XLoc version (checked on the storage lane, raised by requests and
        // by the MRC's confirmations).
        XLocVersions xlocVersions = new XLocVersions(store.metadataStore());
        storageHealth = new StorageHealth(uuid, config.healthStorageFailuresMax(), clock::monotonicNanos);
        xlocConfirmations = new XLocConfirmations(uuid, new MrcXLocSource(dir, successorAddresses,
                new MrcServiceClient(rpcClient, MRC_CALL_TIMEOUT_MS)), xlocVersions, clock::monotonicNanos,
                (request, error) -> request.request().call().fail(error),
                2 * config.heartbeatPeriodMs(), XLOC_VIEWS_MAX, XLOC_WAITING_PER_FILE_MAX);

        int inFlightMax = config.qosInFlightMax();
        // The bound the former one-lane-per-thread stage had in all: what QoS releases plus deletions.
        storage = started(new StorageStage(store, deletions, config.storageThreads(),
                (inFlightMax + 64) * config.storageThreads(), config.storageConcurrentWithinFile(), clock,
                request -> qos.completed(request), chainForwarder, this::loadReport, xlocVersions,
                storageHealth, StorageStage.InlineRule.upTo(config.storageInlineBytesMax())));
        ExecutorWakeUps wakeUps = started(new ExecutorWakeUps(clock, "osd-qos-wakeup"));
        shareRule = ShareRule.forOsd(baseProfile);
        qosPolicyKind = config.qosPolicy();
        VolumeAccounting accounting = new VolumeAccounting(ACCOUNTING_WINDOW_NANOS, ACCOUNTING_WINDOWS_KEPT,
                ACCOUNTING_LATENCY_SAMPLES_KEPT, FairPolicy.FLOW_IDLE_FORGET_NANOS_DEFAULT, ACCOUNTING_VOLUMES_MAX);
        VolumeMetrics.CostUnit costUnit = shareRule.usageType() == OsdUsageType.RANDOM
                ? VolumeMetrics.CostUnit.FOUR_KIB_IOS : VolumeMetrics.CostUnit.BYTES;
        volumeMetrics = new VolumeMetrics(accounting, clock::monotonicNanos, costUnit, ACCOUNTING_WINDOW_NANOS);
        volumeHistory = new VolumeHistory(accounting, costUnit, ACCOUNTING_WINDOW_NANOS, ACCOUNTING_WINDOWS_KEPT);
        qos = started(new QosStage(queueingPolicy(qosPolicyKind), inFlightMax, clock, wakeUps, this::releaseToStorage,
                waiting -> waiting.request().call().fail(RpcException.internal("OSD is shutting down")), shareRule,
                accounting, device::writeBackLevel));
        locks = new LockManager(clock, config.locksLeaseMs(), config.locksPerFileMax(), config.locksMax());
        LockService lockService = new LockService(locks);
        replicaFiller = started(new ReplicaFiller(new OsdServiceClient(rpcClient, ReplicaFiller.COPY_RETRY_MS),
                successorAddresses, () -> selfAddress, config.replicationFillBytesPerSecond(),
                config.replicationFillsMax()));
        preprocessing = started(new PreprocessingStage(uuid, new XCapSigner(config.capabilitySecret()), clock,
                config.preprocessingThreads(), config.preprocessingQueueCapacity(),
                xlocConfirmations.gate(replicaFiller.routing(lockService.routing(
                        storage.inlineAfter(qos::submit))))));
        DeletionScheduler deletionScheduler = started(new DeletionScheduler(deletions, storage,
                Math.max(DELETION_POLL_MS_MIN, Math.min(DELETION_POLL_MS_MAX, config.deletionDelayMs()))));

        int osd = OsdInterface.OSD_INTERFACE_ID_VALUE;
        RpcServer.Builder rpcBuilder = RpcServer.builder("osd", new InetSocketAddress(config.bindAddress(),
                config.port()));
        config.rpcTls().ifPresent(rpcBuilder::tls);
        rpcServer = started(rpcBuilder
                .handle(osd, OsdProcedure.OSD_READ_VALUE, new ReadOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_WRITE_VALUE, new WriteOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_TRUNCATE_VALUE, new TruncateOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_UNLINK_VALUE, new UnlinkOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_FSYNC_VALUE, new FsyncOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_GET_FILE_SIZE_VALUE, new GetFileSizeOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_PING_VALUE, new PingOp())
                .handle(osd, OsdProcedure.OSD_LOCK_ACQUIRE_VALUE, new LockAcquireOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_LOCK_CHECK_VALUE, new LockCheckOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_LOCK_RELEASE_VALUE, new LockReleaseOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_LOCK_RENEW_VALUE, new LockRenewOp(lockService))
                .handle(osd, OsdProcedure.OSD_FILL_REPLICA_VALUE, new FillReplicaOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_COPY_OBJECT_VALUE, new CopyObjectOp(preprocessing))
                .handle(osd, OsdProcedure.OSD_DELETE_FILES_VALUE, new DeleteFilesOp(preprocessing, deletionScheduler))
                .build());
        InetSocketAddress rpcAddress = rpcServer.start();
        // A fill's copies go to this OSD itself, over loopback (the bind address may be the wildcard).
        selfAddress = new ServiceAddress(rpcServer.scheme(), java.net.InetAddress.getLoopbackAddress().getHostAddress(),
                rpcAddress.getPort());
        deletionScheduler.start();

        AddressMapping mapping = AddressMapping.newBuilder().setUuid(uuid).setProtocol(rpcServer.scheme().schemeName())
                .setAddress(advertisedHost()).setPort(rpcAddress.getPort()).setMatchNetwork("*")
                .setTtlS(ADDRESS_MAPPING_TTL_S).build();
        reaper = new VolumeReaper(store, deletions, config.deletedVolumeFilesPerHeartbeat());
        heartbeat = started(new DirHeartbeat(dir, uuid, mapping, this::attributes, deletedVolumeIds -> {
                    xlocConfirmations.heartbeatAccepted();
                    reapDeletedVolumes(deletedVolumeIds);
                },
                config.heartbeatPeriodMs(), storageHealth::failing));
        heartbeat.start();
        PrometheusRegistry metrics = new PrometheusRegistry();
        volumeMetrics.register(metrics);
        StatusPageServer statusPage = started(new StatusPageServer(
                new InetSocketAddress(config.bindAddress(), config.statusPort()),
                () -> OsdStatus.page(status()), this::status, metrics, config.statusLimits()));
        OsdChartPage.route(statusPage, () -> volumeHistory.history(clock.monotonicNanos(), clock.wallClockMillis()));
        statusPage.handleLoopbackPost(DEVICE_SPEED_PATH, this::changeDeviceSpeed);
        statusPage.handleLoopbackPost(QOS_POLICY_PATH, this::changeQueueingPolicy);
        addresses = new Addresses(rpcAddress, statusPage.address());
        return addresses;
    }

    /** A new policy of {@code kind}; the fair one charges by this OSD's registered profile (ShareRule). */
    private QueueingPolicy<AuthorizedRequest> queueingPolicy(QueueingPolicyKind kind) {
        bufferedWritePacing = null;
        return switch (kind) {
            case FIFO -> new FifoPolicy<>(config.qosQueueCapacity());
            case FAIR -> new FairPolicy<>(
                    shareRule,
                    new QueueBounds(config.qosVolumeQueueCapacity(), config.qosQueueCapacity()),
                    FairPolicy.FLOW_IDLE_FORGET_NANOS_DEFAULT,
                    bufferedWritePacing = config.qosBufferedWritePacing().paces(profileDescribesDevice)
                            ? new BufferedWritePacing(ShareRule.capacityCostPerSecond(baseProfile),
                                    BufferedWritePacing.BURST_NANOS_DEFAULT)
                            : null);
        };
    }

    /**
     * What every read answer reports of this OSD, so clients decide stealing without asking
     * (qos.routing.ReadStealing): the requests waiting in the QoS stage, and the dirty bytes of the device's
     * write-back while its background flusher works through them (at or above the background threshold). Below it
     * the host leaves dirty data alone until it expires, so a stolen read delays no flush, which is what the
     * simulator's "no dirty write-back" means (there an idle replica flushes before it steals). Seen only where the
     * OSD models its device (emulation); 0 for the real disk, whose host page cache is shared with every other
     * process (StorageDevice#writeBackLevel), so there the thief's condition is its queue alone.
     */
    private org.xtreemfs.interfaces.osd.ReadResponse loadReport() {
        long flushingBytes = device.writeBackLevel().filter(level -> !level.belowBackground())
                .map(level -> level.dirtyBytes()).orElse(0L);
        return org.xtreemfs.interfaces.osd.ReadResponse.newBuilder().setQueuedRequests(Math.max(0, qos.queueLength()))
                .setWriteBackDirtyBytes(flushingBytes).build();
    }

    private void releaseToStorage(AuthorizedRequest request) {
        if (!storage.offer(request)) {
            request.request().call().fail(RpcException.overloaded("OSD storage stage is full at its bound"
                    + " ((osd.qos.inFlightMax + 64) x osd.storage.threads) with work of file " + request.fileId()
                    + "; retry later"));
            qos.completed(request);
        }
    }

    /** The accounting windows in one heartbeat period (at least 1, at most the windows a snapshot lists). */
    private int heartbeatWindows() {
        long windows = -Math.floorDiv(-config.heartbeatPeriodMs() * 1_000_000L, ACCOUNTING_WINDOW_NANOS);
        return (int) Math.max(1, Math.min(VolumeAccounting.RECENT_WINDOWS_SHOWN, windows));
    }

    /**
     * The file system of the object folder, found once: Files.getFileStore reads and parses the whole mount table
     * (profiled: 3-4 % of a busy OSD's CPU at two heartbeats a second), while its space figures are read live.
     */
    private volatile FileStore objectFileStore;

    /** The heartbeat's attributes; samples (and restarts) the storage stage's busy period. */
    OsdAttributes attributes() {
        long freeBytes = 0;
        long totalBytes = 0;
        try {
            FileStore fileStore = objectFileStore;
            if (fileStore == null) {
                fileStore = Files.getFileStore(config.objectPath());
                objectFileStore = fileStore;
            }
            freeBytes = fileStore.getUsableSpace();
            totalBytes = fileStore.getTotalSpace();
        } catch (IOException e) {
            // Reported as zero space: placement then avoids this OSD until the folder is readable again.
        }
        return OsdAttributes.newBuilder()
                .setUsageType(QosWire.toWire(config.usageType()))
                .setDeviceClass(QosWire.toWire(config.deviceClass()))
                .setFreeBytes(freeBytes)
                .setTotalBytes(totalBytes)
                .setLoadPercent((int) Math.round(storage.sampleBusyFraction() * 100))
                .setQueueLength(qos.queueLength())
                .setDeviceProfile(config.deviceClass().name().toLowerCase(Locale.ROOT))
                .setProfile(profile(totalBytes))
                .setVolumeAttainment(volumeMetrics.heartbeatReport(HEARTBEAT_VOLUMES_MAX, heartbeatWindows()))
                .build();
    }

    /**
     * Chooses the profile once at start: the calibrated profile file ({@code osd.profile.path}, source
     * "calibrated"); else the emulated model's derived profile (source "model hdd7200" / "model ssd"); else the
     * built-in profile of the configured device class (source "model hdd" / "model ssd").
     */
    private void loadProfile() throws IOException {
        DeviceEmulation emulation = config.deviceEmulation();
        if (emulation.emulated() && emulation.deviceClass() != config.configuredDeviceClass()) {
            org.slf4j.LoggerFactory.getLogger(OsdServer.class).warn(
                    "osd.device.class = {} is ignored: osd.device.emulation = {} implies device class {}",
                    config.configuredDeviceClass().name().toLowerCase(Locale.ROOT), emulation.configName(),
                    emulation.deviceClass().name().toLowerCase(Locale.ROOT));
        }
        if (config.profilePath().isPresent()) {
            Path file = config.profilePath().get();
            baseProfile = ProfileFile.read(file, config.usageType());
            if (baseProfile.deviceClass() != config.deviceClass()) {
                throw new IllegalArgumentException("osd.profile.path: " + file + " profiles a "
                        + baseProfile.deviceClass().name().toLowerCase(Locale.ROOT) + " but osd.device.class"
                        + (emulation.emulated() ? " (implied by osd.device.emulation = " + emulation.configName() + ")"
                        : "") + " is " + config.deviceClass().name().toLowerCase(Locale.ROOT));
            }
            profileSource = ProfileFile.source(file);
            profileDescribesDevice = true;
        } else if (emulation.emulated()) {
            baseProfile = emulation.derivedProfile(config.usageType());
            profileSource = "model " + emulation.configName();
            profileDescribesDevice = true;
        } else {
            baseProfile = OsdProfiles.builtIn(config.deviceClass(), config.usageType());
            profileSource = "model " + config.deviceClass().name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The profile the MRC admits reservations against, with the smallest of the profile's capacity, the object
     * folder's file system size and {@code osd.object.capacityBytes} (a disk smaller than the profile's, or one
     * shared with other OSDs, must not be promised more than this OSD can store).
     */
    private org.xtreemfs.interfaces.common.OsdProfile profile(long totalBytes) {
        OsdProfile base = baseProfile;
        long capacityBytes = offeredCapacityBytes(base.capacityBytes(), totalBytes, config.objectCapacityBytes());
        OsdProfile profile = new OsdProfile(base.usageType(), base.deviceClass(), capacityBytes,
                base.sequentialThroughput(), base.randomIops());
        return QosWire.toWire(profile).setSource(profileSource).build();
    }

    /**
     * The capacity an OSD offers: the profile's, capped by its file system's size (when known, > 0) and by the
     * configured capacity (when set, > 0). Invariant: never more than any of the known bounds.
     */
    static long offeredCapacityBytes(long profileBytes, long fileSystemBytes, long configuredBytes) {
        long capacityBytes = profileBytes;
        if (fileSystemBytes > 0) {
            capacityBytes = Math.min(capacityBytes, fileSystemBytes);
        }
        if (configuredBytes > 0) {
            capacityBytes = Math.min(capacityBytes, configuredBytes);
        }
        return capacityBytes;
    }

    /** The profile chosen at start (before the capacity cap); null before {@link #start()}. */
    synchronized OsdProfile baseProfile() {
        return baseProfile;
    }

    /**
     * {@code POST /device/speed} on the status port, from this host only: the body is the fraction of the
     * emulated model's speed the device runs at from now on (0 &lt; fraction &le; 1; 0.6667 takes a third of its
     * capacity away, 1 restores it). For benchmarks of a capacity drop; the registered profile does not change.
     */
    private String changeDeviceSpeed(String body) {
        if (!(device instanceof EmulatedDevice<?> emulated)) {
            throw new IllegalArgumentException("this OSD emulates no device (osd.device.emulation = none): the real "
                    + "disk's speed cannot be changed");
        }
        double fraction;
        try {
            fraction = Double.parseDouble(body);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the device's speed fraction must be a number such as 0.6667, not '"
                    + body + "'");
        }
        emulated.setSpeedFraction(fraction);
        org.slf4j.LoggerFactory.getLogger(OsdServer.class).info("emulated device ({}) now runs at {} of its model's speed", config.deviceEmulation().configName(),
                fraction);
        return "device speed fraction " + fraction;
    }

    /**
     * {@code POST /qos/policy} on the status port, from this host only: the body is {@code fair} or {@code fifo},
     * the policy the QoS stage runs from now on (the requests waiting move over, see {@link QosStage#switchPolicy});
     * {@code osd.qos.policy} is only the policy at start. For measuring one policy against the other on the same
     * cluster under the same load (tests/bench/core/qos-overhead); a switch is logged.
     */
    private String changeQueueingPolicy(String body) {
        QueueingPolicyKind kind;
        try {
            kind = QueueingPolicyKind.valueOf(body.strip().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the QoS policy must be fair or fifo, not '" + body.strip() + "'");
        }
        int moved;
        synchronized (this) {
            moved = qos.switchPolicy(queueingPolicy(kind));
            qosPolicyKind = kind;
        }
        org.slf4j.LoggerFactory.getLogger(OsdServer.class).info("QoS policy switched to {} ({} waiting requests moved)",
                kind.name().toLowerCase(java.util.Locale.ROOT), moved);
        return "qos policy " + kind.name().toLowerCase(java.util.Locale.ROOT) + ", " + moved + " waiting requests moved";
    }

    /** Counters and queue lengths for the status page, in display order. */
    Map<String, Object> status() {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("uuid", uuid);
        status.put("health", StageMetrics.health(preprocessing.metrics(), storage.metrics()));
        status.put("usageType", config.usageType());
        status.put("deviceClass", config.deviceClass());
        status.put("deviceEmulation", config.deviceEmulation().configName());
        status.put("profileSource", profileSource);
        status.put("deviceSpeedFraction", device instanceof EmulatedDevice<?> emulated ? emulated.speedFraction() : 1.0);
        // What the QoS stage's pacing sees of the host's write-back (-1: not seen, the real disk).
        status.put("deviceWriteBackDirtyBytes", device.writeBackLevel().map(level -> level.dirtyBytes()).orElse(-1L));
        status.put("objectPath", config.objectPath().toString());
        status.put("rpcPendingCalls", rpcServer.pendingCalls());
        status.put("rpcMalformedFrames", rpcServer.malformedFrames());
        status.put("rpcReadPauses", rpcServer.readPauses());
        status.put("rpcUnreadReplyClosures", rpcServer.unreadReplyClosures());
        status.put("preprocessing", preprocessing.metrics());
        status.put("qosQueueLength", qos.queueLength());
        status.put("qosPolicy", qosPolicyKind);
        status.put("qosBufferedWritePacingCostPerSecond", bufferedWritePacing == null ? 0
                : bufferedWritePacing.capacityCostPerSecond());
        status.put("qosQueueCapacity", config.qosQueueCapacity());
        status.put("qosVolumeQueueCapacity", config.qosVolumeQueueCapacity());
        status.put("qosInFlight", qos.inFlight());
        status.put("qosAdmittedCount", qos.admittedCount());
        status.put("qosRejectedCount", qos.rejectedCount());
        status.put("qosWakeUpCount", qos.wakeUpCount());
        status.put("qosAccountingWindowSeconds", ACCOUNTING_WINDOW_NANOS / 1e9);
        status.put("qosAttainedFraction", VolumeAccounting.ATTAINED_FRACTION);
        status.put("qosVolumes", volumeMetrics.status());
        status.put("storage", storage.metrics());
        status.put("storageBytesRead", storage.bytesRead());
        status.put("storageBytesWritten", storage.bytesWritten());
        status.put("replicaFillsActive", replicaFiller.fillsActive());
        status.put("replicaFillsCompleted", replicaFiller.fillsCompleted());
        status.put("replicaFillsFailed", replicaFiller.fillsFailed());
        status.put("replicaObjectsCopied", storage.objectsCopied());
        status.put("replicaBytesCopied", storage.bytesCopied());
        status.put("chainForwarded", chainForwarder.forwardedCount());
        status.put("chainForwardsFailed", chainForwarder.failedCount());
        LogStructuredStore log = StorageLayout.logOf(store);
        status.put("storageLayout", config.storageLayout());
        status.put("storageLogLiveBytes", log == null ? 0 : log.statistics().liveBytes());
        // Read routing and consistent reads at chain members (README "Consistent reads").
        status.put("storageReadsServed", storage.readsServed());
        status.put("storageFailures", storageHealth.failures());
        status.put("storageFailing", storageHealth.failing());
        status.put("replicationReadsPassedDown", chainForwarder.readsPassedDownCount());
        status.put("replicationDirtyFiles", storage.replicationDirtyFiles());
        status.put("deletionsPending", deletions.pendingCount());
        status.put("filesDeleted", storage.filesDeleted());
        status.put("storageExpiredCount", storage.expiredCount());
        // Requests run on their network thread, and how often one was slow and sent the next to the workers (README).
        status.put("storageInlineRuns", storage.inlineRuns());
        status.put("storageInlinePauses", storage.inlinePauses());
        status.put("locksHeld", locks.lockCount());
        status.put("lockClients", locks.clientCount());
        status.put("lockLeasesExpired", locks.expiredClientCount());
        status.put("dirAddress", config.dirAddress().toString());
        status.put("heartbeatsSent", heartbeat.heartbeatsSent());
        status.put("heartbeatsFailed", heartbeat.heartbeatsFailed());
        status.put("heartbeatLastError", heartbeat.lastError());
        return status;
    }

    private String advertisedHost() {
        return AdvertisedAddress.of(config.advertisedAddress(), config.bindAddress());
    }

    private <T extends AutoCloseable> T started(T component) {
        started.add(component);
        return component;
    }

    public synchronized String uuid() {
        return uuid;
    }

    public synchronized Addresses addresses() {
        return addresses;
    }

    /** The bound RPC address (for the launcher's READY line); null before {@link #start()}. */
    @Override
    public synchronized InetSocketAddress address() {
        return addresses == null ? null : addresses.rpc();
    }

    /** The bound status page address (for the launcher's READY line); null before {@link #start()}. */
    @Override
    public synchronized InetSocketAddress statusAddress() {
        return addresses == null ? null : addresses.status();
    }

    ObjectStorage store() {
        return store;
    }

    /** Queues the next files of the deleted volumes the DIR named; a failure is retried with the next heartbeat. */
    private void reapDeletedVolumes(List<String> volumeIds) {
        try {
            int queued = reaper.reap(volumeIds);
            if (queued > 0) {
                LOG.info("queued {} files of deleted volumes for deletion", queued);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot look for files of deleted volumes (retried with the next heartbeat): {}", e.toString());
        }
    }

    VolumeReaper reaper() {
        return reaper;
    }

    DeletionQueue deletions() {
        return deletions;
    }

    DirHeartbeat heartbeat() {
        return heartbeat;
    }

    QosStage qos() {
        return qos;
    }

    LockManager locks() {
        return locks;
    }

    StorageStage storage() {
        return storage;
    }

    /** Stops everything in reverse start order: no new calls, queued requests failed, threads ended. */
    @Override
    public synchronized void close() {
        closeStarted();
    }

    private void closeStarted() {
        List<AutoCloseable> reverse = new ArrayList<>(started);
        Collections.reverse(reverse);
        for (AutoCloseable component : reverse) {
            try {
                component.close();
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(OsdServer.class).warn("closing {} failed", component, e);
            }
        }
        started.clear();
    }
}
