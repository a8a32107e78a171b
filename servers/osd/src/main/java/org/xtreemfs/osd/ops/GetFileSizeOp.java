package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_GET_FILE_SIZE: the file size this OSD's writes and truncates imply. */
public final class GetFileSizeOp extends QueuedOp<FileRequest> {
    public GetFileSizeOp(PreprocessingStage pipeline) {
        super(pipeline, FileRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, FileRequest request) throws RpcException {
        return new OsdRequest.GetFileSize(call, request.getCredentials(), Requests.fileId(request.getFileId()));
    }
}
