package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.LockRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_LOCK_RELEASE: unlocks an owner's POSIX range or its flock lock. */
public final class LockReleaseOp extends QueuedOp<LockRequest> {
    public LockReleaseOp(PreprocessingStage pipeline) {
        super(pipeline, LockRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, LockRequest request) throws RpcException {
        return new OsdRequest.LockOperation(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                OsdRequest.LockAction.RELEASE, Requests.lock(request.getLock()));
    }
}
