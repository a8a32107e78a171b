package org.xtreemfs.mrc;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.AddressMappingsSetResponse;
import org.xtreemfs.interfaces.dir.DirInterface;
import org.xtreemfs.interfaces.dir.DirProcedure;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceRegisterRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeDeregisterRequest;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.rpc.Empty;

/** A minimal in-process DIR: records registrations and serves a fixed list of OSDs. */
final class FakeDir implements AutoCloseable {
    final Map<String, Service> services = new ConcurrentHashMap<>();
    final Map<String, AddressMappingSet> mappings = new ConcurrentHashMap<>();
    final Map<String, VolumeRegistration> volumes = new ConcurrentHashMap<>();
    final List<Service> osds = new CopyOnWriteArrayList<>();
    private final RpcServer server;
    final InetSocketAddress address;

    FakeDir() throws InterruptedException {
        int dir = DirInterface.DIR_INTERFACE_ID_VALUE;
        server = RpcServer.builder("fake-dir", new InetSocketAddress("127.0.0.1", 0))
                .handle(dir, DirProcedure.DIR_SERVICE_REGISTER_VALUE, call -> {
                    Service service = call.request(ServiceRegisterRequest.parser()).getService();
                    services.put(service.getUuid(), service);
                    call.respond(ServiceRegisterResponse.newBuilder().setVersion(1).build());
                })
                .handle(dir, DirProcedure.DIR_ADDRESS_MAPPINGS_SET_VALUE, call -> {
                    AddressMappingSet set = call.request(AddressMappingSet.parser());
                    mappings.put(set.getMappings(0).getUuid(), set);
                    call.respond(AddressMappingsSetResponse.newBuilder().setVersion(1).build());
                })
                .handle(dir, DirProcedure.DIR_VOLUME_REGISTER_VALUE, call -> {
                    VolumeRegistration volume = call.request(VolumeRegistration.parser());
                    volumes.put(volume.getVolumeName(), volume);
                    call.respond(Empty.getDefaultInstance());
                })
                .handle(dir, DirProcedure.DIR_VOLUME_DEREGISTER_VALUE, call -> {
                    volumes.remove(call.request(VolumeDeregisterRequest.parser()).getVolumeName());
                    call.respond(Empty.getDefaultInstance());
                })
                .handle(dir, DirProcedure.DIR_SERVICE_GET_BY_TYPE_VALUE, call ->
                        call.respond(ServiceSet.newBuilder().addAllServices(osds).build()))
                .build();
        address = server.start();
    }

    void addOsd(String uuid, long freeBytes) {
        osds.add(Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD).setUuid(uuid).setName(uuid)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder().setUsageType(OsdUsageType.OSD_BEST_EFFORT)
                        .setFreeBytes(freeBytes).setTotalBytes(2 * freeBytes))
                .build());
    }

    /** An OSD of a reservation type, reporting {@code profile} as admission reads it. */
    void addTypedOsd(String uuid, org.xtreemfs.qos.model.OsdProfile profile) {
        osds.add(Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD).setUuid(uuid).setName(uuid)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder().setUsageType(QosWire.toWire(profile.usageType()))
                        .setFreeBytes(profile.capacityBytes()).setTotalBytes(profile.capacityBytes())
                        .setProfile(QosWire.toWire(profile)))
                .build());
    }

    @Override
    public void close() {
        server.close();
    }
}
