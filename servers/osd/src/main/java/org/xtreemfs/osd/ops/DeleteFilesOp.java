package org.xtreemfs.osd.ops;

import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.osd.DeleteFilesRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.osd.stages.DeletionScheduler;
import org.xtreemfs.osd.stages.PreprocessingStage;

/**
 * OSD_DELETE_FILES: the MRC's batch of deleted files. Every file's capability and XLoc are checked here (any failure
 * refuses the whole batch, naming the file); then the batch is recorded in the deletion queue with one synced write
 * and answered, and the objects go after osd.deletion.delayMs through the storage stage, ordered with any other work
 * on each file, as for OSD_UNLINK and deleted volumes.
 */
public final class DeleteFilesOp implements RpcHandler {
    private final PreprocessingStage preprocessing;
    private final DeletionScheduler deletions;

    public DeleteFilesOp(PreprocessingStage preprocessing, DeletionScheduler deletions) {
        this.preprocessing = preprocessing;
        this.deletions = deletions;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        DeleteFilesRequest request = call.request(DeleteFilesRequest.parser());
        if (request.getFilesCount() > OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX) {
            throw RpcException.invalidArguments("OSD_DELETE_FILES names " + request.getFilesCount()
                    + " files; at most " + OsdServiceClient.DELETE_FILES_PER_REQUEST_MAX + " per request");
        }
        List<String> fileIds = new ArrayList<>(request.getFilesCount());
        for (FileRequest file : request.getFilesList()) {
            String fileId = Requests.fileId(file.getFileId());
            preprocessing.authorizeDeletion(file.getCredentials(), fileId);
            fileIds.add(fileId);
        }
        if (fileIds.isEmpty()) {
            call.respond(Empty.getDefaultInstance());
            return;
        }
        deletions.record(fileIds, call);
    }
}
