package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.interfaces.dir.ServiceUuidRequest;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_GET_BY_UUID: the service with that UUID, whatever its status; an empty set when unknown. */
public final class ServiceGetByUuidOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceGetByUuidOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceUuidRequest request = call.request(ServiceUuidRequest.parser());
        stage.submit(call, () -> {
            ServiceSet.Builder services = ServiceSet.newBuilder();
            registry.byUuid(request.getUuid()).ifPresent(services::addServices);
            return services.build();
        });
    }
}
