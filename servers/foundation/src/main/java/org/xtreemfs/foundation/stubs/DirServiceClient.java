package org.xtreemfs.foundation.stubs;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.AddressMappingsGetRequest;
import org.xtreemfs.interfaces.dir.AddressMappingsSetResponse;
import org.xtreemfs.interfaces.dir.DirInterface;
import org.xtreemfs.interfaces.dir.DirProcedure;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceGetByNameRequest;
import org.xtreemfs.interfaces.dir.ServiceGetByTypeRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.ServiceUuidRequest;
import org.xtreemfs.interfaces.dir.VolumeDeregisterRequest;
import org.xtreemfs.interfaces.dir.VolumeGetRequest;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.dir.VolumeRegistrationSet;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** Typed stub of the DIR interface (dir.proto). Services call the DIR as the system user. */
public final class DirServiceClient extends ServiceStub {
    private static final UserCredentials SYSTEM = UserCredentials.newBuilder().setUsername("xtreemfs").build();
    private final InetSocketAddress dir;

    public DirServiceClient(RpcClient rpcClient, InetSocketAddress dir, long timeoutMs) {
        super(rpcClient, DirInterface.DIR_INTERFACE_ID_VALUE, timeoutMs);
        this.dir = dir;
    }

    public InetSocketAddress address() {
        return dir;
    }

    public CompletableFuture<AddressMappingSet> addressMappingsGet(String uuid) {
        return call(dir, SYSTEM, DirProcedure.DIR_ADDRESS_MAPPINGS_GET_VALUE,
                AddressMappingsGetRequest.newBuilder().setUuid(uuid).build(), AddressMappingSet.parser());
    }

    public CompletableFuture<AddressMappingsSetResponse> addressMappingsSet(AddressMappingSet mappings) {
        return call(dir, SYSTEM, DirProcedure.DIR_ADDRESS_MAPPINGS_SET_VALUE, mappings,
                AddressMappingsSetResponse.parser());
    }

    /** Registers a service or refreshes its heartbeat and dynamic attributes. */
    public CompletableFuture<ServiceRegisterResponse> serviceRegister(Service service) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_REGISTER_VALUE,
                ServiceRegisterRequest.newBuilder().setService(service).build(), ServiceRegisterResponse.parser());
    }

    public CompletableFuture<Empty> serviceDeregister(String uuid) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_DEREGISTER_VALUE,
                ServiceUuidRequest.newBuilder().setUuid(uuid).build(), Empty.parser());
    }

    public CompletableFuture<ServiceSet> serviceGetByType(ServiceType type, boolean includeDead) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_GET_BY_TYPE_VALUE,
                ServiceGetByTypeRequest.newBuilder().setType(type).setIncludeDead(includeDead).build(),
                ServiceSet.parser());
    }

    public CompletableFuture<ServiceSet> serviceGetByUuid(String uuid) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_GET_BY_UUID_VALUE,
                ServiceUuidRequest.newBuilder().setUuid(uuid).build(), ServiceSet.parser());
    }

    public CompletableFuture<ServiceSet> serviceGetByName(String name) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_GET_BY_NAME_VALUE,
                ServiceGetByNameRequest.newBuilder().setName(name).build(), ServiceSet.parser());
    }

    public CompletableFuture<Empty> serviceOffline(String uuid) {
        return call(dir, SYSTEM, DirProcedure.DIR_SERVICE_OFFLINE_VALUE,
                ServiceUuidRequest.newBuilder().setUuid(uuid).build(), Empty.parser());
    }

    public CompletableFuture<Empty> volumeRegister(VolumeRegistration volume) {
        return call(dir, SYSTEM, DirProcedure.DIR_VOLUME_REGISTER_VALUE, volume, Empty.parser());
    }

    public CompletableFuture<Empty> volumeDeregister(String volumeName) {
        return call(dir, SYSTEM, DirProcedure.DIR_VOLUME_DEREGISTER_VALUE,
                VolumeDeregisterRequest.newBuilder().setVolumeName(volumeName).build(), Empty.parser());
    }

    /** The volume's registration; fails with ERRNO ENOENT when the DIR knows no such volume. */
    public CompletableFuture<VolumeRegistration> volumeGet(String volumeName) {
        return call(dir, SYSTEM, DirProcedure.DIR_VOLUME_GET_VALUE,
                VolumeGetRequest.newBuilder().setVolumeName(volumeName).build(), VolumeRegistration.parser());
    }

    public CompletableFuture<VolumeRegistrationSet> volumeList() {
        return call(dir, SYSTEM, DirProcedure.DIR_VOLUME_LIST_VALUE, Empty.getDefaultInstance(),
                VolumeRegistrationSet.parser());
    }

    public CompletableFuture<Empty> ping() {
        return call(dir, SYSTEM, DirProcedure.DIR_PING_VALUE, Empty.getDefaultInstance(), Empty.parser());
    }
}
