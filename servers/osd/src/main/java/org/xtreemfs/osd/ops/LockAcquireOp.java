package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.LockRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_LOCK_ACQUIRE: grants a POSIX or flock lock at the head OSD, or fails with ERRNO EAGAIN at once. */
public final class LockAcquireOp extends QueuedOp<LockRequest> {
    public LockAcquireOp(PreprocessingStage pipeline) {
        super(pipeline, LockRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, LockRequest request) throws RpcException {
        return new OsdRequest.LockOperation(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                OsdRequest.LockAction.ACQUIRE, Requests.lock(request.getLock()));
    }
}
