package org.xtreemfs.mrc;

import com.google.protobuf.MessageLite;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.launcher.RunningServer;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.rpc.AdvertisedAddress;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.foundation.status.StatusPageServer;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.mrc.MrcInterface;
import org.xtreemfs.interfaces.mrc.MrcProcedure;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.interfaces.mrc.VolumeList;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OutcomeJournal;
import org.xtreemfs.mrc.ops.AccessOp;
import org.xtreemfs.mrc.ops.CallerIdentity;
import org.xtreemfs.mrc.ops.FtruncateOp;
import org.xtreemfs.mrc.ops.ReplicaFailedOp;
import org.xtreemfs.mrc.ops.ObjectDeletions;
import org.xtreemfs.mrc.ops.RecoveryCheck;
import org.xtreemfs.mrc.ops.ReplacementFills;
import org.xtreemfs.mrc.ops.GetFileLayoutOp;
import org.xtreemfs.mrc.ops.GetattrOp;
import org.xtreemfs.mrc.ops.GetxattrOp;
import org.xtreemfs.mrc.ops.LinkOp;
import org.xtreemfs.mrc.ops.ListxattrOp;
import org.xtreemfs.mrc.ops.MkdirOp;
import org.xtreemfs.mrc.ops.MknodOp;
import org.xtreemfs.mrc.ops.OpServices;
import org.xtreemfs.mrc.ops.OpenOp;
import org.xtreemfs.mrc.ops.OperationCounters;
import org.xtreemfs.mrc.ops.PingOp;
import org.xtreemfs.mrc.ops.ReaddirOp;
import org.xtreemfs.mrc.ops.ReadlinkOp;
import org.xtreemfs.mrc.ops.RemovexattrOp;
import org.xtreemfs.mrc.ops.RenameOp;
import org.xtreemfs.mrc.ops.RenewCapabilityOp;
import org.xtreemfs.mrc.ops.RmdirOp;
import org.xtreemfs.mrc.ops.SetattrOp;
import org.xtreemfs.mrc.ops.SetxattrOp;
import org.xtreemfs.mrc.ops.StatvfsOp;
import org.xtreemfs.mrc.ops.SymlinkOp;
import org.xtreemfs.mrc.ops.UnlinkOp;
import org.xtreemfs.mrc.ops.UpdateFileSizeOp;
import org.xtreemfs.mrc.ops.VolumeCreateOp;
import org.xtreemfs.mrc.ops.VolumeDeleteOp;
import org.xtreemfs.mrc.ops.QosStatusOp;
import org.xtreemfs.mrc.ops.VolumeListOp;
import org.xtreemfs.mrc.ops.VolumeSetReservationOp;
import org.xtreemfs.mrc.ops.VolumeSetReplicationOp;
import org.xtreemfs.mrc.ops.AddReplicaOp;
import org.xtreemfs.mrc.ops.ReplicaFilledOp;
import org.xtreemfs.mrc.ops.RemoveReplicaOp;
import org.xtreemfs.mrc.registry.VolumeAttainmentSum;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.registry.DirRegistration;
import org.xtreemfs.mrc.registry.OsdDirectory;
import org.xtreemfs.mrc.stages.MetadataStage;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * Wiring only: opens the database, starts the metadata stage, the RPC server, the DIR registration and
 * the status page, and stops them in reverse order. Usable in-process: {@code new MrcServer(config)},
 * {@link #start()}, {@link #close()}.
 */
public final class MrcServer implements RunningServer {
    private static final Logger LOG = LoggerFactory.getLogger(MrcServer.class);
    static final String UUID_KEY = "mrc.uuid";
    /** How long an OSD's address from the DIR is reused by the replacement fills. */
    private static final long OSD_ADDRESS_CACHE_MS = 10_000;

    private final MrcConfig config;
    private final Clock clock;
    private final Supplier<String> volumeIds;
    private final List<AutoCloseable> started = new ArrayList<>();
    private RocksKvStore store;
    private Namespace namespace;
    private OutcomeJournal outcomes;
    private ReservationLedger ledger;
    private OsdSelectionPolicies policies;
    private MetadataStage metadataStage;
    private RpcServer rpcServer;
    private DirRegistration dirRegistration;
    private OsdDirectory osdDirectory;
    private OperationCounters counters;
    private ReplacementFills replacementFills;
    private ObjectDeletions objectDeletions;
    private RecoveryCheck recoveryCheck;
    private String uuid;
    private InetSocketAddress address;
    private StatusPageServer statusPage;
    private VolumeAttainmentMetrics volumeAttainment;

    public MrcServer(MrcConfig config) {
        this(config, SystemClock.INSTANCE, () -> java.util.UUID.randomUUID().toString());
    }

    /** With the clock and volume-id seams replaced (tests, simulation). */
    public MrcServer(MrcConfig config, Clock clock, Supplier<String> volumeIds) {
        this.config = config;
        this.clock = clock;
        this.volumeIds = volumeIds;
    }

    /** The launcher's entry: builds and starts an MRC from validated settings. */
    public static MrcServer launch(Settings settings) throws Exception {
        MrcServer server = new MrcServer(new MrcConfig(settings));
        server.start();
        return server;
    }

    /** Starts everything; returns the bound RPC address. Registration at the DIR continues in background. */
    public synchronized InetSocketAddress start() throws Exception {
        if (address != null) {
            throw new IllegalStateException("MRC already started");
        }
        try {
            PrivateFiles.dataFolder(MrcConfig.DATABASE_PATH.key(), config.databasePath());
            store = RocksKvStore.open(config.kvOptions());
            started.add(store);
            policies = OsdSelectionPolicies.standard(config.placementFreeSpaceMinBytes(),
                    config.placementBestEffortOnTypedOsds());
            namespace = new Namespace(store, config.databaseSyncWrites() ? Durability.SYNC : Durability.BUFFERED,
                    config.atimePolicy());
            ledger = ReservationLedger.load(store, new ReservationScheduler());
            outcomes = new OutcomeJournal(namespace, config.outcomesRetentionMs(), config.outcomesRecordsMax());
            uuid = loadOrCreateUuid();
            // Unsynced batches cost less than the two thread hand-offs of the queue: the network thread applies
            // an operation itself when nothing waits (MetadataStage); a synced batch waits for the disk there.
            metadataStage = new MetadataStage(config.metadataQueueCapacity(), clock, !config.databaseSyncWrites());
            started.add(metadataStage);
            RpcClient rpcClient = new RpcClient("mrc-" + uuid.substring(0, Math.min(8, uuid.length())),
                    FrameLimits.DEFAULT, RpcClient.CONNECT_TIMEOUT_MS_DEFAULT, config.outgoingTls().orElse(null));
            started.add(rpcClient);
            DirServiceClient dir = new DirServiceClient(rpcClient, config.dirServiceAddress(),
                    config.dirTimeoutMs());
            osdDirectory = new OsdDirectory(dir, clock, config.placementOsdCacheTtlMs());
            CapabilityIssuer capabilities = new CapabilityIssuer(new XCapSigner(config.capabilitySecret()), clock,
                    config.capabilityTimeoutMs());
            counters = new OperationCounters();
            dirRegistration = new DirRegistration(dir, uuid, config.name(), config.heartbeatPeriodMs());
            // A dead chain member's replacement is filled from here (ReplicaFailedOp, ReplacementFills).
            replacementFills = new ReplacementFills(namespace, ledger, metadataStage, capabilities,
                    new UuidResolver(dir, OSD_ADDRESS_CACHE_MS, clock::monotonicNanos),
                    new OsdServiceClient(rpcClient, config.recoveryFillTimeoutMs()), config.recoveryFillRetryDelayMs());
            started.add(replacementFills);
            // Deleted files' objects: recorded by unlink and rename in their batch, sent to the OSDs from here.
            objectDeletions = new ObjectDeletions(namespace, metadataStage, capabilities,
                    new UuidResolver(dir, OSD_ADDRESS_CACHE_MS, clock::monotonicNanos),
                    new OsdServiceClient(rpcClient, ObjectDeletions.REQUEST_TIMEOUT_MS), config.deletionBatchDelayMs(),
                    config.deletionRetryDelayMs());
            started.add(objectDeletions);
            objectDeletions.start();
            rpcServer = buildRpcServer(capabilities);
            address = rpcServer.start();
            started.add(rpcServer);
            dirRegistration.start(rpcServer.scheme(), advertisedHost(), address.getPort(), namespace.listVolumes());
            started.add(dirRegistration);
            // Fills a restart interrupted and chains left short, from the replica work each chain change recorded.
            recoveryCheck = new RecoveryCheck(namespace, ledger, policies, metadataStage, osdDirectory,
                    replacementFills, config.recoveryCheckPeriodMs(), config.recoveryCheckFilesMax());
            started.add(recoveryCheck);
            recoveryCheck.start();
            volumeAttainment = new VolumeAttainmentMetrics(this::sumVolumeAttainment, clock::monotonicNanos);
            PrometheusRegistry metrics = new PrometheusRegistry();
            volumeAttainment.register(metrics);
            statusPage = MrcStatusPage.start(this, new InetSocketAddress(config.bindAddress(), config.statusPort()),
                    metrics);
            started.add(statusPage);
            LOG.info("MRC {} serving on {} with database {}", uuid, address, config.databasePath());
            return address;
        } catch (Exception | Error e) {
            closeStarted();
            throw e;
        }
    }

    private RpcServer buildRpcServer(CapabilityIssuer capabilities) {
        OpServices services = new OpServices(namespace, ledger, policies, metadataStage, capabilities, osdDirectory,
                dirRegistration, clock, volumeIds, counters, outcomes,
                config.identityFromCertificate() ? CallerIdentity.fromCertificate() : CallerIdentity.stated());
        RpcServer.Builder builder = RpcServer.builder("mrc", new InetSocketAddress(config.bindAddress(),
                config.port()));
        config.rpcTls().ifPresent(builder::tls);
        register(builder, MrcProcedure.MRC_VOLUME_CREATE, new VolumeCreateOp(services));
        register(builder, MrcProcedure.MRC_VOLUME_DELETE, new VolumeDeleteOp(services));
        register(builder, MrcProcedure.MRC_VOLUME_LIST, new VolumeListOp(services));
        register(builder, MrcProcedure.MRC_GETATTR, new GetattrOp(services));
        register(builder, MrcProcedure.MRC_SETATTR, new SetattrOp(services));
        register(builder, MrcProcedure.MRC_MKDIR, new MkdirOp(services));
        register(builder, MrcProcedure.MRC_RMDIR, new RmdirOp(services));
        register(builder, MrcProcedure.MRC_OPEN, new OpenOp(services));
        register(builder, MrcProcedure.MRC_UNLINK, new UnlinkOp(services));
        register(builder, MrcProcedure.MRC_RENAME, new RenameOp(services));
        register(builder, MrcProcedure.MRC_LINK, new LinkOp(services));
        register(builder, MrcProcedure.MRC_SYMLINK, new SymlinkOp(services));
        register(builder, MrcProcedure.MRC_READLINK, new ReadlinkOp(services));
        register(builder, MrcProcedure.MRC_READDIR, new ReaddirOp(services));
        register(builder, MrcProcedure.MRC_GETXATTR, new GetxattrOp(services));
        register(builder, MrcProcedure.MRC_SETXATTR, new SetxattrOp(services));
        register(builder, MrcProcedure.MRC_LISTXATTR, new ListxattrOp(services));
        register(builder, MrcProcedure.MRC_REMOVEXATTR, new RemovexattrOp(services));
        register(builder, MrcProcedure.MRC_STATVFS, new StatvfsOp(services));
        register(builder, MrcProcedure.MRC_ACCESS, new AccessOp(services));
        register(builder, MrcProcedure.MRC_RENEW_CAPABILITY, new RenewCapabilityOp(services));
        register(builder, MrcProcedure.MRC_UPDATE_FILE_SIZE, new UpdateFileSizeOp(services));
        register(builder, MrcProcedure.MRC_FTRUNCATE, new FtruncateOp(services));
        register(builder, MrcProcedure.MRC_GET_FILE_LAYOUT, new GetFileLayoutOp(services));
        register(builder, MrcProcedure.MRC_PING, new PingOp());
        register(builder, MrcProcedure.MRC_MKNOD, new MknodOp(services));
        register(builder, MrcProcedure.MRC_VOLUME_SET_RESERVATION, new VolumeSetReservationOp(services));
        register(builder, MrcProcedure.MRC_VOLUME_SET_REPLICATION, new VolumeSetReplicationOp(services));
        register(builder, MrcProcedure.MRC_ADD_REPLICA, new AddReplicaOp(services));
        register(builder, MrcProcedure.MRC_REPLICA_FILLED, new ReplicaFilledOp(services));
        register(builder, MrcProcedure.MRC_REMOVE_REPLICA, new RemoveReplicaOp(services));
        register(builder, MrcProcedure.MRC_QOS_STATUS, new QosStatusOp(services));
        register(builder, MrcProcedure.MRC_REPLICA_FAILED, new ReplicaFailedOp(services, replacementFills));
        return builder.build();
    }

    private static void register(RpcServer.Builder builder, MrcProcedure procedure, RpcHandler handler) {
        builder.handle(MrcInterface.MRC_INTERFACE_ID_VALUE, procedure.getNumber(), handler);
    }

    /** The configured UUID, else the one persisted in the database, else a new one (persisted). */
    private String loadOrCreateUuid() {
        if (!config.uuid().isEmpty()) {
            return config.uuid();
        }
        return namespace.mrcValue(UUID_KEY).orElseGet(() -> {
            String generated = java.util.UUID.randomUUID().toString();
            namespace.putMrcValue(UUID_KEY, generated);
            return generated;
        });
    }

    private String advertisedHost() {
        return AdvertisedAddress.of(config.advertisedAddress(), config.bindAddress());
    }

    @Override
    public synchronized InetSocketAddress address() {
        return address;
    }

    public synchronized String uuid() {
        return uuid;
    }

    /** The bound status page port (useful when 0 was configured). */
    public synchronized int statusPort() {
        return statusPage.port();
    }

    /** The bound status page address, for the launcher's READY line; null before {@link #start()}. */
    @Override
    public synchronized InetSocketAddress statusAddress() {
        return statusPage == null ? null : statusPage.address();
    }

    MetadataStage metadataStage() {
        return metadataStage;
    }

    ObjectDeletions objectDeletions() {
        return objectDeletions;
    }

    ReplacementFills replacementFills() {
        return replacementFills;
    }

    RecoveryCheck recoveryCheck() {
        return recoveryCheck;
    }

    OperationCounters counters() {
        return counters;
    }

    OutcomeJournal outcomes() {
        return outcomes;
    }

    RocksKvStore.Counts storeCounts() {
        return store.counts();
    }

    OsdDirectory osdDirectory() {
        return osdDirectory;
    }

    DirRegistration dirRegistration() {
        return dirRegistration;
    }

    MrcConfig config() {
        return config;
    }

    /** Each OSD of the reservation ledger with what is reserved on it and what it offers at its stream count. */
    List<String> namespaceLedgerSummary() {
        return ledger.summary();
    }

    VolumeAttainmentMetrics volumeAttainment() {
        return volumeAttainment;
    }

    /**
     * Each volume's attainment summed from the OSDs' heartbeats as the DIR last listed them (cached, so at
     * most one OSD heartbeat period plus mrc.placement.osdCacheTtlMs old); read on the metadata thread.
     */
    private List<VolumeAttainment> sumVolumeAttainment() throws Exception {
        List<OsdReport> reports = OsdReport.of(osdDirectory.cachedServices());
        return metadataStage.submit("status", () -> VolumeAttainmentSum.sum(reports, namespace.listVolumes(),
                ledger::stripeOsds)).get(2, TimeUnit.SECONDS);
    }

    /** One line per volume for the status page, read on the metadata thread so it never races an operation. */
    List<String> volumeSummary() {
        try {
            MessageLite volumes = metadataStage.submit("status", () -> VolumeList.newBuilder()
                    .addAllVolumes(namespace.listVolumes()).build()).get(2, TimeUnit.SECONDS);
            List<String> lines = new ArrayList<>();
            for (Volume volume : ((VolumeList) volumes).getVolumesList()) {
                lines.add(volume.getName() + " id=" + volume.getId() + " owner=" + volume.getOwnerUid()
                        + " width=" + volume.getDefaultStripingPolicy().getWidth() + " reservation="
                        + volume.getReservation().getType() + ledger.stripeOsds(volume.getId())
                                .map(osds -> " placed on " + osds).orElse(""));
            }
            return lines;
        } catch (Exception e) {
            return List.of("(unavailable: " + e + ")");
        }
    }

    @Override
    public synchronized void close() {
        closeStarted();
        address = null;
    }

    private void closeStarted() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                LOG.warn("MRC: closing {} failed: {}", started.get(i).getClass().getSimpleName(), e.toString());
            }
        }
        started.clear();
    }
}
