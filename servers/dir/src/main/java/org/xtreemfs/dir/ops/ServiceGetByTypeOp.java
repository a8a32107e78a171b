package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.interfaces.dir.ServiceGetByTypeRequest;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_GET_BY_TYPE: services of a type (UNSPECIFIED: all); DEAD and OFFLINE ones only with include_dead. */
public final class ServiceGetByTypeOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceGetByTypeOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceGetByTypeRequest request = call.request(ServiceGetByTypeRequest.parser());
        stage.submit(call, () -> ServiceSet.newBuilder()
                .addAllServices(registry.byType(request.getType(), request.getIncludeDead())).build());
    }
}
