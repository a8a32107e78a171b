package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.interfaces.dir.VolumeGetRequest;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_VOLUME_GET: the registration of one volume; ENOENT naming the volume when unknown. */
public final class VolumeGetOp implements RpcHandler {
    private final RegistryStage stage;
    private final VolumeRegistry registry;

    public VolumeGetOp(RegistryStage stage, VolumeRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        VolumeGetRequest request = call.request(VolumeGetRequest.parser());
        stage.submit(call, () -> registry.get(request.getVolumeName()));
    }
}
