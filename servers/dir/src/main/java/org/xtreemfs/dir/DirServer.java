package org.xtreemfs.dir;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.dir.ops.AddressMappingsGetOp;
import org.xtreemfs.dir.ops.AddressMappingsSetOp;
import org.xtreemfs.dir.ops.PingOp;
import org.xtreemfs.dir.ops.ServiceDeregisterOp;
import org.xtreemfs.dir.ops.ServiceGetByNameOp;
import org.xtreemfs.dir.ops.ServiceGetByTypeOp;
import org.xtreemfs.dir.ops.ServiceGetByUuidOp;
import org.xtreemfs.dir.ops.ServiceOfflineOp;
import org.xtreemfs.dir.ops.ServiceRegisterOp;
import org.xtreemfs.dir.ops.VolumeDeregisterOp;
import org.xtreemfs.dir.ops.VolumeGetOp;
import org.xtreemfs.dir.ops.VolumeListOp;
import org.xtreemfs.dir.ops.VolumeRegisterOp;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.dir.status.DirStatusPage;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.foundation.status.StatusPageServer;
import org.xtreemfs.interfaces.dir.DirInterface;
import org.xtreemfs.interfaces.dir.DirProcedure;

/**
 * Wires the DIR: RocksDB store → registries → registry stage → RPC handlers, plus the status page.
 * Usable in-process: {@link #start()} returns the bound addresses, {@link #close()} releases everything,
 * and a new server on the same database folder sees every acknowledged change.
 */
public final class DirServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DirServer.class);

    /** Where a started DIR listens. */
    public record Addresses(InetSocketAddress rpc, InetSocketAddress status) {}

    private final DirConfig config;
    private final Clock clock;
    private KvStore store;
    private ServiceRegistry services;
    private VolumeRegistry volumes;
    private RegistryStage registryStage;
    private RpcServer rpcServer;
    private StatusPageServer statusServer;
    private Addresses addresses;

    public DirServer(DirConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    public DirServer(DirConfig config) {
        this(config, SystemClock.INSTANCE);
    }

    /**
     * Opens the database and starts serving RPC and the status page.
     *
     * @return the bound RPC and status addresses (free ports resolved)
     * @throws IOException if a port cannot be bound; everything opened so far is closed again
     */
    public synchronized Addresses start() throws IOException, InterruptedException {
        if (store != null) {
            throw new IllegalStateException("DIR already started");
        }
        try {
            PrivateFiles.dataFolder(DirConfig.DATABASE_PATH.key(), config.databasePath());
            store = RocksKvStore.open(config.kvOptions());
            services = new ServiceRegistry(store, clock, config.heartbeatTimeoutMs());
            volumes = new VolumeRegistry(store);
            registryStage = RegistryStage.start(config.registryQueueCapacity(), clock);
            rpcServer = buildRpcServer();
            InetSocketAddress rpcAddress = rpcServer.start();
            DirStatusPage page = new DirStatusPage(services, volumes, clock, registryStage::metrics);
            statusServer = new StatusPageServer(new InetSocketAddress(config.bindAddress(), config.statusPort()),
                    page::render, page::json, new PrometheusRegistry(), config.statusLimits());
            addresses = new Addresses(rpcAddress, statusServer.address());
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("DIR serving RPC on {} and its status page on {}; database {}", addresses.rpc(),
                addresses.status(), config.databasePath());
        return addresses;
    }

    private RpcServer buildRpcServer() {
        int dir = DirInterface.DIR_INTERFACE_ID_VALUE;
        RpcServer.Builder builder = RpcServer.builder("dir", new InetSocketAddress(config.bindAddress(), config.port()));
        config.rpcTls().ifPresent(builder::tls);
        return builder
                .pendingCallsMax(config.rpcPendingCallsMax())
                .handle(dir, DirProcedure.DIR_ADDRESS_MAPPINGS_GET_VALUE, new AddressMappingsGetOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_ADDRESS_MAPPINGS_SET_VALUE, new AddressMappingsSetOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_SERVICE_REGISTER_VALUE,
                        new ServiceRegisterOp(registryStage, services, volumes))
                .handle(dir, DirProcedure.DIR_SERVICE_DEREGISTER_VALUE, new ServiceDeregisterOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_SERVICE_GET_BY_TYPE_VALUE, new ServiceGetByTypeOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_SERVICE_GET_BY_UUID_VALUE, new ServiceGetByUuidOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_SERVICE_GET_BY_NAME_VALUE, new ServiceGetByNameOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_SERVICE_OFFLINE_VALUE, new ServiceOfflineOp(registryStage, services))
                .handle(dir, DirProcedure.DIR_VOLUME_REGISTER_VALUE, new VolumeRegisterOp(registryStage, volumes))
                .handle(dir, DirProcedure.DIR_VOLUME_DEREGISTER_VALUE, new VolumeDeregisterOp(registryStage, volumes))
                .handle(dir, DirProcedure.DIR_VOLUME_GET_VALUE, new VolumeGetOp(registryStage, volumes))
                .handle(dir, DirProcedure.DIR_VOLUME_LIST_VALUE, new VolumeListOp(registryStage, volumes))
                .handle(dir, DirProcedure.DIR_PING_VALUE, new PingOp())
                .build();
    }

    /** Where the DIR listens; null before {@link #start()}. */
    public synchronized Addresses addresses() {
        return addresses;
    }

    /** The service registry (for tests and the status page); null before {@link #start()}. */
    public synchronized ServiceRegistry services() {
        return services;
    }

    public synchronized VolumeRegistry volumes() {
        return volumes;
    }

    /** Connections the RPC server closed because of malformed frames; 0 before start. */
    public synchronized long malformedFrames() {
        return rpcServer == null ? 0 : rpcServer.malformedFrames();
    }

    /**
     * Stops accepting calls, lets queued registry calls finish, then closes the status page and the
     * database. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (rpcServer != null) {
            rpcServer.close();
            rpcServer = null;
        }
        if (registryStage != null) {
            registryStage.close();
            registryStage = null;
        }
        if (statusServer != null) {
            statusServer.close();
            statusServer = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
