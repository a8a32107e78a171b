package org.xtreemfs.dir.ops;

import org.xtreemfs.interfaces.dir.ServiceRegisterRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/**
 * DIR_SERVICE_REGISTER: registers a service or refreshes its heartbeat; answers its new version and, to an
 * OSD, the ids of deleted volumes whose objects it is to remove.
 */
public final class ServiceRegisterOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;
    private final VolumeRegistry volumes;

    public ServiceRegisterOp(RegistryStage stage, ServiceRegistry registry, VolumeRegistry volumes) {
        this.stage = stage;
        this.registry = registry;
        this.volumes = volumes;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceRegisterRequest request = call.request(ServiceRegisterRequest.parser());
        stage.submit(call, () -> {
            ServiceRegisterResponse.Builder response = ServiceRegisterResponse.newBuilder()
                    .setVersion(registry.register(request.getService()));
            if (request.getService().getType() == ServiceType.SERVICE_TYPE_OSD) {
                response.addAllDeletedVolumeIds(volumes.deletedVolumeIds());
            }
            return response.build();
        });
    }
}
