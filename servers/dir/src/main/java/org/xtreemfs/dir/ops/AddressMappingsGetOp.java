package org.xtreemfs.dir.ops;

import org.xtreemfs.interfaces.dir.AddressMappingsGetRequest;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_ADDRESS_MAPPINGS_GET: the address mappings of one service UUID; empty when none are known. */
public final class AddressMappingsGetOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public AddressMappingsGetOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        AddressMappingsGetRequest request = call.request(AddressMappingsGetRequest.parser());
        stage.submit(call, () -> registry.addressMappings(request.getUuid()));
    }
}
