package org.xtreemfs.dir.ops;

import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.dir.stages.RegistryStage;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;

/** DIR_VOLUME_REGISTER: records which MRC serves a volume; EEXIST when the name or id is taken by another volume. */
public final class VolumeRegisterOp implements RpcHandler {
    private final RegistryStage stage;
    private final VolumeRegistry registry;

    public VolumeRegisterOp(RegistryStage stage, VolumeRegistry registry) {
        this.stage = stage;
        this.registry = registry;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        VolumeRegistration request = call.request(VolumeRegistration.parser());
        stage.submit(call, () -> {
            registry.register(request);
            return Empty.getDefaultInstance();
        });
    }
}
