package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.interfaces.dir.ServiceGetByNameRequest;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_GET_BY_NAME: every service with that name, whatever its status. */
public final class ServiceGetByNameOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceGetByNameOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceGetByNameRequest request = call.request(ServiceGetByNameRequest.parser());
        stage.submit(call, () -> ServiceSet.newBuilder().addAllServices(registry.byName(request.getName())).build());
    }
}
