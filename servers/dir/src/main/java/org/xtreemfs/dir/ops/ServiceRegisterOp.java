package org.xtreemfs.dir.ops;

import org.xtreemfs.interfaces.dir.ServiceRegisterRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_REGISTER: registers a service or refreshes its heartbeat; answers its new version. */
public final class ServiceRegisterOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceRegisterOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceRegisterRequest request = call.request(ServiceRegisterRequest.parser());
        stage.submit(call, () -> ServiceRegisterResponse.newBuilder()
                .setVersion(registry.register(request.getService())).build());
    }
}
