package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.interfaces.dir.ServiceUuidRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_DEREGISTER: forgets a service and its address mappings (idempotent). */
public final class ServiceDeregisterOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceDeregisterOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceUuidRequest request = call.request(ServiceUuidRequest.parser());
        stage.submit(call, () -> {
            registry.deregister(request.getUuid());
            return Empty.getDefaultInstance();
        });
    }
}
