package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.LockRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_LOCK_CHECK: the lock of another owner that conflicts with the given one (F_GETLK). */
public final class LockCheckOp extends QueuedOp<LockRequest> {
    public LockCheckOp(PreprocessingStage pipeline) {
        super(pipeline, LockRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, LockRequest request) throws RpcException {
        return new OsdRequest.LockOperation(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                OsdRequest.LockAction.CHECK, Requests.lock(request.getLock()));
    }
}
