package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.interfaces.dir.VolumeDeregisterRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_VOLUME_DEREGISTER: forgets a volume; ENOENT naming the volume when unknown. */
public final class VolumeDeregisterOp implements RpcHandler {
    private final RegistryStage stage;
    private final VolumeRegistry registry;

    public VolumeDeregisterOp(RegistryStage stage, VolumeRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        VolumeDeregisterRequest request = call.request(VolumeDeregisterRequest.parser());
        stage.submit(call, () -> {
            registry.deregister(request.getVolumeName());
            return Empty.getDefaultInstance();
        });
    }
}
