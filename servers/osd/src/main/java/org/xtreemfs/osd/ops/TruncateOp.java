package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_TRUNCATE: sets the file size on this OSD's objects and records the new truncate epoch. */
public final class TruncateOp extends QueuedOp<TruncateRequest> {
    public TruncateOp(PreprocessingStage pipeline) {
        super(pipeline, TruncateRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, TruncateRequest request) throws RpcException {
        return new OsdRequest.TruncateFile(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                Requests.unsignedLong(request.getNewFileSizeBytes(), "new file size"), request.getForwarded());
    }
}
