package org.xtreemfs.dir.ops;

import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.AddressMappingsSetResponse;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_ADDRESS_MAPPINGS_SET: replaces the address mappings of one service; answers their new version. */
public final class AddressMappingsSetOp implements RpcHandler {
    private final RegistryStage stage;
    private final ServiceRegistry registry;

    public AddressMappingsSetOp(RegistryStage stage, ServiceRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        AddressMappingSet request = call.request(AddressMappingSet.parser());
        stage.submit(call, () -> AddressMappingsSetResponse.newBuilder()
                .setVersion(registry.setAddressMappings(request)).build());
    }
}
