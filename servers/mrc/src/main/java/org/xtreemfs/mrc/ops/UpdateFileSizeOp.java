package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.UpdateFileSizeRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_UPDATE_FILE_SIZE: a writer reports the file size (on fsync and close) with a write XCap. The epoch
 * is {@code new_file_size.truncate_epoch} and may not exceed the XCap's. Older than the file's size
 * epoch: ignored; newer: sets the size (completes a truncate); equal: grows the size only.
 */
public final class UpdateFileSizeOp extends MetadataOp<UpdateFileSizeRequest> {
    public UpdateFileSizeOp(OpServices services) {
        super(services, "MRC_UPDATE_FILE_SIZE", UpdateFileSizeRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, UpdateFileSizeRequest request)
            throws Exception {
        FileIds.ParsedFileId file = services.capabilities().verify(request.getXcap(), true);
        int epoch = request.getNewFileSize().getTruncateEpoch();
        if (Integer.compareUnsigned(epoch, request.getXcap().getTruncateEpoch()) > 0) {
            throw RpcException.invalidArguments("new_file_size.truncate_epoch " + Integer.toUnsignedString(epoch)
                    + " is newer than the XCap's " + request.getXcap().getTruncateEpoch() + " for file "
                    + request.getXcap().getFileId());
        }
        services.namespace().updateFileSize(context, file.volumeId(), file.inode(),
                request.getNewFileSize().getSizeBytes(), epoch, request.getCloseFile());
        return Empty.getDefaultInstance();
    }
}
