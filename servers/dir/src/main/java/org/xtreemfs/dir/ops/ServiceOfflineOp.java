package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.interfaces.dir.ServiceUuidRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_SERVICE_OFFLINE: marks a service OFFLINE until it registers again; ENOENT for an unknown UUID. */
public final class ServiceOfflineOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public ServiceOfflineOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        ServiceUuidRequest request = call.request(ServiceUuidRequest.parser());
        stage.submit(call, () -> {
            registry.markOffline(request.getUuid());
            return Empty.getDefaultInstance();
        });
    }
}
