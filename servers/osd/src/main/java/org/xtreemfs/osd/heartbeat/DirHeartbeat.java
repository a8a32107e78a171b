package org.xtreemfs.osd.heartbeat;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.interfaces.common.KeyValuePair;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

/**
 * Registers the OSD at the DIR and keeps it registered: DIR_ADDRESS_MAPPINGS_SET until it succeeds once,
 * then DIR_SERVICE_REGISTER with fresh attributes every period (that re-registration is the heartbeat). A
 * failed call is logged and retried on the next period; the OSD keeps serving without its DIR. The ids of
 * deleted volumes in each answer go to {@code deletedVolumes} (on this thread, after the call).
 */
public final class DirHeartbeat implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DirHeartbeat.class);

    private static final long OFFLINE_TIMEOUT_MS = 2_000;

    private final DirServiceClient dir;
    private final String uuid;
    private final AddressMapping mapping;
    private final Supplier<OsdAttributes> attributes;
    private final Consumer<List<String>> deletedVolumes;
    private final long periodMs;
    /** True while this OSD should not be used (its storage is failing): it then registers as TO_BE_REMOVED. */
    private final BooleanSupplier unusable;
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "osd-heartbeat");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong heartbeatsSent = new AtomicLong();
    private final AtomicLong heartbeatsFailed = new AtomicLong();
    private volatile boolean mappingRegistered;
    private volatile String lastError = "";

    /**
     * @param attributes sampled once per heartbeat (it may reset load counters)
     * @param unusable asked once per heartbeat: true registers this OSD as TO_BE_REMOVED (placement skips it, and
     *     the MRC removes it from a chain when a client reports it) instead of AVAILABLE
     */
    public DirHeartbeat(DirServiceClient dir, String uuid, AddressMapping mapping,
            Supplier<OsdAttributes> attributes, Consumer<List<String>> deletedVolumes, long periodMs,
            BooleanSupplier unusable) {
        this.unusable = unusable;
        this.dir = dir;
        this.uuid = uuid;
        this.mapping = mapping;
        this.attributes = attributes;
        this.deletedVolumes = deletedVolumes;
        this.periodMs = periodMs;
    }

    public void start() {
        executor.scheduleWithFixedDelay(this::beat, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    /** One heartbeat; true when the DIR accepted it. Runs on the heartbeat thread (it blocks on the DIR). */
    public boolean beat() {
        try {
            if (!mappingRegistered) {
                RpcClient.await(dir.addressMappingsSet(AddressMappingSet.newBuilder().addMappings(mapping).build()));
                mappingRegistered = true;
            }
            ServiceRegisterResponse answer = RpcClient.await(dir.serviceRegister(service()));
            heartbeatsSent.incrementAndGet();
            lastError = "";
            deletedVolumes.accept(answer.getDeletedVolumeIdsList());
            return true;
        } catch (Exception e) {
            heartbeatsFailed.incrementAndGet();
            lastError = e.toString();
            LOG.warn("heartbeat to DIR {} failed (retry in {} ms): {}", dir.address(), periodMs, e.toString());
            return false;
        }
    }

    Service service() {
        return Service.newBuilder()
                .setType(ServiceType.SERVICE_TYPE_OSD)
                .setUuid(uuid)
                .setName("OSD " + uuid)
                // The host replicas are spread over (mrc.placement.ChainPlacement): the advertised address.
                .addStaticAttributes(KeyValuePair.newBuilder().setKey(ReplicationRules.HOST_ATTRIBUTE).setValue(mapping.getAddress()))
                .setStatus(unusable.getAsBoolean() ? ServiceStatus.SERVICE_STATUS_TO_BE_REMOVED
                        : ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(attributes.get())
                .build();
    }

    public long heartbeatsSent() {
        return heartbeatsSent.get();
    }

    public long heartbeatsFailed() {
        return heartbeatsFailed.get();
    }

    /** The last failure's description, empty after a success. */
    public String lastError() {
        return lastError;
    }

    /** Stops the heartbeat and, if the DIR knows this OSD, tells it the OSD is going offline (best effort). */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
            if (heartbeatsSent.get() > 0) {
                dir.serviceOffline(uuid).get(OFFLINE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.info("could not tell DIR {} that OSD {} goes offline: {}", dir.address(), uuid, e.toString());
        }
    }
}
