package org.xtreemfs.mrc.registry;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.rpc.Empty;

/**
 * The MRC's presence at the DIR: registers the service and its address mapping, re-registers every
 * heartbeat period (that is the heartbeat), and registers/deregisters volumes. A failed heartbeat is
 * logged and retried at the next period; it never stops the MRC.
 */
public final class DirRegistration implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DirRegistration.class);

    private final DirServiceClient dir;
    private final String uuid;
    private final String serviceName;
    private RpcScheme scheme;
    private String advertisedHost;
    private int advertisedPort;
    private final long heartbeatPeriodMs;
    private final AtomicLong heartbeatsSent = new AtomicLong();
    private final AtomicLong heartbeatsFailed = new AtomicLong();
    private ScheduledExecutorService scheduler;

    public DirRegistration(DirServiceClient dir, String uuid, String serviceName, long heartbeatPeriodMs) {
        this.dir = dir;
        this.uuid = uuid;
        this.serviceName = serviceName;
        this.heartbeatPeriodMs = heartbeatPeriodMs;
    }

    /**
     * Registers once with the address clients should use and the scheme the MRC's port speaks, registers the given
     * volumes, and starts the heartbeat. The returned future completes when the first round is done (failures are
     * logged).
     */
    public synchronized CompletableFuture<Void> start(RpcScheme scheme, String host, int port, List<Volume> volumes) {
        this.scheme = scheme;
        this.advertisedHost = host;
        this.advertisedPort = port;
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mrc-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        CompletableFuture<Void> first = heartbeat();
        CompletableFuture<Void> withVolumes = first.thenCompose(ignored -> CompletableFuture.allOf(volumes.stream()
                .map(volume -> registerVolume(volume).exceptionally(error -> {
                    LOG.warn("volume '{}' not registered at the DIR: {}", volume.getName(), error.toString());
                    return null;
                })).toArray(CompletableFuture[]::new)));
        scheduler.scheduleAtFixedRate(() -> heartbeat(), heartbeatPeriodMs, heartbeatPeriodMs, TimeUnit.MILLISECONDS);
        return withVolumes;
    }

    /** Service registration plus address mapping; the DIR's re-registration refreshes the heartbeat. */
    public synchronized CompletableFuture<Void> heartbeat() {
        Service service = Service.newBuilder()
                .setType(ServiceType.SERVICE_TYPE_MRC)
                .setUuid(uuid)
                .setName(serviceName)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .build();
        AddressMappingSet mappings = AddressMappingSet.newBuilder().addMappings(AddressMapping.newBuilder()
                .setUuid(uuid).setProtocol(scheme.schemeName()).setAddress(advertisedHost).setPort(advertisedPort)
                .setMatchNetwork("*").setTtlS(3600)).build();
        return dir.serviceRegister(service)
                .thenCompose(registered -> dir.addressMappingsSet(mappings))
                .handle((ignored, error) -> {
                    heartbeatsSent.incrementAndGet();
                    if (error != null) {
                        heartbeatsFailed.incrementAndGet();
                        LOG.warn("MRC {} cannot register at the DIR {}: {}", uuid, dir.address(), error.toString());
                    }
                    return null;
                });
    }

    public CompletableFuture<Empty> registerVolume(Volume volume) {
        return dir.volumeRegister(VolumeRegistration.newBuilder().setVolumeId(volume.getId())
                .setVolumeName(volume.getName()).setMrcUuid(uuid).build());
    }

    public CompletableFuture<Empty> deregisterVolume(String volumeName) {
        return dir.volumeDeregister(volumeName);
    }

    public long heartbeatsSent() {
        return heartbeatsSent.get();
    }

    public long heartbeatsFailed() {
        return heartbeatsFailed.get();
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
