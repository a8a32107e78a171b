package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XCapResponse;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_FTRUNCATE: first step of truncating an open file. Needs a write XCap; issues the next truncate
 * epoch and returns the XCap carrying it. The client then sends OSD_TRUNCATE with the new size and this
 * XCap to every OSD of the stripe, and MRC_UPDATE_FILE_SIZE with the new size and epoch, which sets the
 * size outright because its epoch is newer than the size's (README, "Truncate").
 */
public final class FtruncateOp extends MetadataOp<XCapRequest> {
    public FtruncateOp(OpServices services) {
        super(services, "MRC_FTRUNCATE", XCapRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, XCapRequest request) throws Exception {
        FileIds.ParsedFileId file = services.capabilities().verify(request.getXcap(), true);
        int epoch = services.namespace().beginTruncate(file.volumeId(), file.inode());
        return XCapResponse.newBuilder()
                .setXcap(services.capabilities().withTruncateEpoch(request.getXcap(), epoch)).build();
    }
}
