package org.xtreemfs.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.xtreemfs.client.retry.Retrier;
import org.xtreemfs.client.routing.ReplicaLoads;
import org.xtreemfs.client.retry.RetryPolicy;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.osd.ReadResponse;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.QosStatusRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.mrc.VolumeSetReservationRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Entry point of the client library: one per process and DIR. Owns the RPC client (one connection per
 * server), the UUID resolver and the retry policy that every {@link org.xtreemfs.client.Volume} and
 * {@link FileHandle} of it share. Thread-safe. Close it to release the network threads.
 */
public final class Client implements AutoCloseable {
    private final ClientOptions options;
    private final RpcClient rpcClient;
    private final DirServiceClient dir;
    private final MrcServiceClient mrc;
    private final OsdServiceClient osd;
    private final UuidResolver uuidResolver;
    private final Retrier retrier;
    private final Semaphore objectRequestPermits;
    /** Names this client in exactly-once MRC changes; unique per Client (rpc.proto RequestHeader.client_id). */
    private final String clientId = "java-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID();
    private final AtomicLong nextRequestNumber = new AtomicLong(1);
    /** What the OSDs reported with their read answers: the loads reads are routed by. */
    private final ReplicaLoads replicaLoads = new ReplicaLoads(() -> System.nanoTime() / 1_000_000);
    /** The round-robin binding's stream numbers, in order of first read. */
    private final AtomicInteger nextReadStreamOrdinal = new AtomicInteger();

    private Client(InetSocketAddress dirAddress, ClientOptions options) {
        this.options = options;
        this.rpcClient = new RpcClient("client", FrameLimits.DEFAULT, options.connectTimeoutMs(), options.tls());
        this.dir = new DirServiceClient(rpcClient, dirAddress, options.requestTimeoutMs());
        this.mrc = new MrcServiceClient(rpcClient, options.requestTimeoutMs());
        this.osd = new OsdServiceClient(rpcClient, options.requestTimeoutMs());
        this.uuidResolver = new UuidResolver(dir, options.uuidCacheTtlMs(), System::nanoTime);
        this.retrier = new Retrier(new RetryPolicy(options.retryAttemptsMax(), options.retryBackoffInitialMs(),
                options.retryBackoffMaxMs(), options.retryWindowMs()), ForkJoinPool.commonPool());
        this.objectRequestPermits = new Semaphore(options.objectRequestsInFlightMax());
    }

    /** Creates a client for the DIR at {@code dirAddress}; no network traffic happens until first use. */
    public static Client connect(InetSocketAddress dirAddress, ClientOptions options) {
        return new Client(dirAddress, options);
    }

    public ClientOptions options() {
        return options;
    }

    public InetSocketAddress dirAddress() {
        return dir.address();
    }

    /** Opens a volume by name: finds its MRC through the DIR and checks that the MRC serves it. */
    public org.xtreemfs.client.Volume openVolume(String volumeName) throws XtreemFSException {
        validVolumeName("open volume", volumeName);
        VolumeRegistration registration = await("open volume '" + volumeName + "'",
                retrier.call(true, () -> dir.volumeGet(volumeName), null));
        org.xtreemfs.client.Volume volume = new org.xtreemfs.client.Volume(this, volumeName,
                registration.getVolumeId(), registration.getMrcUuid());
        volume.statvfs();
        return volume;
    }

    /**
     * Creates a volume on an MRC that the DIR lists as available (the first one; deployments have one MRC
     * today). Empty owner fields are filled by the MRC from the caller's credentials.
     */
    public Volume createVolume(Volume volume) throws XtreemFSException {
        validVolumeName("create volume", volume.getName());
        String operation = "create volume '" + volume.getName() + "'";
        String mrcUuid = availableMrcUuid(operation);
        return callMrc(operation, mrcUuid, false,
                (stub, address) -> stub.volumeCreate(address, credentials(),
                        VolumeCreateRequest.newBuilder().setVolume(volume).build()));
    }

    /** Deletes a volume through the MRC that serves it. */
    public void deleteVolume(String volumeName) throws XtreemFSException {
        validVolumeName("delete volume", volumeName);
        String operation = "delete volume '" + volumeName + "'";
        VolumeRegistration registration = await(operation, retrier.call(true, () -> dir.volumeGet(volumeName), null));
        callMrc(operation, registration.getMrcUuid(), false, (stub, address) -> stub.volumeDelete(address, credentials(),
                VolumeNameRequest.newBuilder().setVolumeName(volumeName).build()));
    }

    /**
     * Changes a volume's reservation online; the MRC re-admits it on the OSDs the volume is placed on and
     * refuses it, with the reason, when they have no room.
     */
    public Volume setReservation(String volumeName, QosReservation reservation) throws XtreemFSException {
        validVolumeName("change the reservation of volume", volumeName);
        String operation = "change the reservation of volume '" + volumeName + "'";
        VolumeRegistration registration = await(operation, retrier.call(true, () -> dir.volumeGet(volumeName), null));
        return callMrc(operation, registration.getMrcUuid(), false, (stub, address) -> stub.volumeSetReservation(address,
                credentials(), VolumeSetReservationRequest.newBuilder().setVolumeName(volumeName)
                        .setReservation(reservation).build()));
    }

    /** The reservation ledger of the first available MRC: its OSDs with what is reserved, and the headroom. */
    public QosStatus qosStatus() throws XtreemFSException {
        String operation = "read the reservation ledger";
        return callMrc(operation, availableMrcUuid(operation), true,
                (stub, address) -> stub.qosStatus(address, credentials(), QosStatusRequest.getDefaultInstance()));
    }

    /**
     * The volume's current attainment as its MRC sums it from its OSDs' latest heartbeats (at most one OSD
     * heartbeat period old): reserved, achieved and queue depth per OSD and summed, the worst p99 latency and
     * the worst OSD's fraction of 1-s windows met. No OSD figures (an empty {@code osds} list) when none of its
     * OSDs has served it lately (an OSD forgets a volume idle for 10 s).
     */
    public VolumeAttainment volumeAttainment(String volumeName) throws XtreemFSException {
        validVolumeName("read the attainment of volume", volumeName);
        String operation = "read the attainment of volume '" + volumeName + "'";
        VolumeRegistration registration = await(operation, retrier.call(true, () -> dir.volumeGet(volumeName), null));
        QosStatus status = callMrc(operation, registration.getMrcUuid(), true, (stub, address) -> stub.qosStatus(address,
                credentials(), QosStatusRequest.newBuilder().setVolumeName(volumeName).build()));
        return status.getVolumesList().stream().filter(volume -> volume.getVolumeName().equals(volumeName))
                .findFirst().orElseGet(() -> VolumeAttainment.newBuilder().setVolumeName(volumeName)
                        .setVolumeId(registration.getVolumeId()).build());
    }

    /** All volumes of all available MRCs, with their owner, striping policy and reservation. */
    public List<Volume> listVolumes() throws XtreemFSException {
        List<Volume> volumes = new ArrayList<>();
        for (Service service : services(ServiceType.SERVICE_TYPE_MRC)) {
            if (service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE) {
                volumes.addAll(callMrc("list volumes of MRC " + service.getUuid(), service.getUuid(), true,
                        (stub, address) -> stub.volumeList(address, credentials(), Empty.getDefaultInstance()))
                        .getVolumesList());
            }
        }
        return volumes;
    }

    /** The services of a type the DIR knows (alive ones only). */
    public List<Service> services(ServiceType type) throws XtreemFSException {
        return services(type, false);
    }

    /** The services of a type the DIR knows; with {@code includeDead} also those that stopped heartbeating. */
    public List<Service> services(ServiceType type, boolean includeDead) throws XtreemFSException {
        return await("list services of type " + type + " at the DIR " + describeDir(), retrier.call(true,
                () -> dir.serviceGetByType(type, includeDead), null)).getServicesList();
    }

    /** The address of a service UUID, through the DIR's address mappings (cached). */
    public InetSocketAddress resolve(String serviceUuid) throws XtreemFSException {
        return await("resolve service UUID '" + serviceUuid + "'",
                retrier.call(true, () -> uuidResolver.resolve(serviceUuid), null));
    }

    @Override
    public void close() {
        rpcClient.close();
    }

    UserCredentials credentials() {
        return options.userCredentials();
    }

    /**
     * Calls an MRC with retry. A change ({@code idempotent} false) gets this client's id and the next request
     * number, the same in every attempt, so it is retried like a read: the MRC applies it once and answers a
     * repeat with the first outcome (servers/mrc/README.md, "Exactly-once retries").
     */
    <T> T callMrc(String operation, String mrcUuid, boolean idempotent,
            BiFunction<MrcServiceClient, InetSocketAddress, CompletableFuture<T>> call) throws XtreemFSException {
        MrcServiceClient stub = idempotent ? mrc : mrc.exactlyOnce(clientId, nextRequestNumber.getAndIncrement());
        return callService(operation, mrcUuid, true, address -> call.apply(stub, address));
    }

    OsdServiceClient osd() {
        return osd;
    }

    /** An OSD stub whose calls may take {@code timeoutMs} (a replica fill answers when it is done). */
    OsdServiceClient osd(long timeoutMs) {
        return new OsdServiceClient(rpcClient, timeoutMs);
    }

    /**
     * Changes a volume's replication policy (the copies new files get; existing files keep theirs, see {@link
     * FileReplicas}); refused for reserved volumes and counts outside ReplicationRules' bounds.
     */
    public Volume setReplication(String volumeName, int replicas) throws XtreemFSException {
        validVolumeName("change the replication of volume", volumeName);
        String operation = "change the replication of volume '" + volumeName + "' to " + replicas + " replicas";
        VolumeRegistration registration = await(operation, retrier.call(true, () -> dir.volumeGet(volumeName), null));
        return callMrc(operation, registration.getMrcUuid(), false, (stub, address) -> stub.volumeSetReplication(
                address, credentials(), org.xtreemfs.interfaces.mrc.VolumeSetReplicationRequest.newBuilder()
                        .setVolumeName(volumeName).setReplicationPolicy(
                                org.xtreemfs.interfaces.common.ReplicationPolicy.newBuilder().setReplicas(replicas))
                        .build()));
    }

    Semaphore objectRequestPermits() {
        return objectRequestPermits;
    }

    ReplicaLoads replicaLoads() {
        return replicaLoads;
    }

    int nextReadStreamOrdinal() {
        return nextReadStreamOrdinal.getAndIncrement() & Integer.MAX_VALUE;
    }

    /** Records the load an OSD reported with a read answer (ReadResponse.queued_requests, write_back_dirty_bytes). */
    void noteReadAnswer(String osdUuid, RpcResponse response) {
        try {
            ReadResponse answer = response.message(ReadResponse.parser());
            replicaLoads.reported(osdUuid, answer.getQueuedRequests(), answer.getWriteBackDirtyBytes());
        } catch (RpcException malformed) {
            // The data is what the caller wants; an unreadable load report only leaves the last one in place.
        }
    }

    /**
     * Calls a service by UUID with retry; a transport failure forgets the cached address so the next attempt
     * asks the DIR again (the service may have restarted elsewhere).
     */
    <T> CompletableFuture<T> callServiceAsync(String serviceUuid, boolean idempotent,
            Function<InetSocketAddress, CompletableFuture<T>> call) {
        return retrier.call(idempotent, () -> uuidResolver.resolve(serviceUuid).thenCompose(call), failure -> {
            if (failure instanceof RpcTransportException) {
                uuidResolver.invalidate(serviceUuid);
            }
        });
    }

    <T> T callService(String operation, String serviceUuid, boolean idempotent,
            Function<InetSocketAddress, CompletableFuture<T>> call) throws XtreemFSException {
        return await(operation, callServiceAsync(serviceUuid, idempotent, call));
    }

    /** Waits for a call and turns its failure into an {@link XtreemFSException} naming the operation. */
    static <T> T await(String operation, CompletableFuture<T> future) throws XtreemFSException {
        try {
            return RpcClient.await(future);
        } catch (RpcException e) {
            throw XtreemFSException.from(operation, e);
        }
    }

    private static void validVolumeName(String operation, String volumeName) throws XtreemFSException {
        try {
            VolumeUrl.requireValidVolumeName(volumeName);
        } catch (IllegalArgumentException e) {
            throw new XtreemFSException(Errno.EINVAL, operation + ": " + e.getMessage());
        }
    }

    private String describeDir() {
        return dir.address().getHostString() + ":" + dir.address().getPort();
    }

    private String availableMrcUuid(String operation) throws XtreemFSException {
        for (Service service : services(ServiceType.SERVICE_TYPE_MRC)) {
            if (service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE) {
                return service.getUuid();
            }
        }
        throw new XtreemFSException(Errno.EAGAIN, operation + ": the DIR at " + describeDir()
                + " lists no available MRC");
    }
}
