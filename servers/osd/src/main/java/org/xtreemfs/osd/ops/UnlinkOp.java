package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_UNLINK: records durably that the file's objects are deleted after osd.deletion.delayMs. */
public final class UnlinkOp extends QueuedOp<FileRequest> {
    public UnlinkOp(PreprocessingStage pipeline) {
        super(pipeline, FileRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, FileRequest request) throws RpcException {
        return new OsdRequest.UnlinkFile(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                request.getForwarded());
    }
}
