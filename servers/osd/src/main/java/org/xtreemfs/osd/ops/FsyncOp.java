package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_FSYNC: forces every object of the file this OSD holds to stable storage. */
public final class FsyncOp extends QueuedOp<FileRequest> {
    public FsyncOp(PreprocessingStage pipeline) {
        super(pipeline, FileRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, FileRequest request) throws RpcException {
        return new OsdRequest.FsyncFile(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                request.getForwarded());
    }
}
