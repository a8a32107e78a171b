package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.interfaces.dir.VolumeRegistrationSet;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_VOLUME_LIST: every registered volume in name order. */
public final class VolumeListOp implements RpcHandler {
    private final RegistryStage stage;
    private final VolumeRegistry registry;

    public VolumeListOp(RegistryStage stage, VolumeRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        call.request(Empty.parser());
        stage.submit(call, () -> VolumeRegistrationSet.newBuilder().addAllVolumes(registry.list()).build());
    }
}
