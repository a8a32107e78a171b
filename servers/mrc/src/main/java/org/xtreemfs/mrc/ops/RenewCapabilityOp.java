package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XCapResponse;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_RENEW_CAPABILITY: a valid (signed, unexpired) XCap of an existing file comes back with a new
 * expiry; every other field, including the truncate epoch, is kept.
 */
public final class RenewCapabilityOp extends MetadataOp<XCapRequest> {
    public RenewCapabilityOp(OpServices services) {
        super(services, "MRC_RENEW_CAPABILITY", XCapRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, XCapRequest request) throws Exception {
        FileIds.ParsedFileId file = services.capabilities().verify(request.getXcap(), false);
        services.namespace().inodeOf(file.volumeId(), file.inode());
        return XCapResponse.newBuilder().setXcap(services.capabilities().renew(request.getXcap())).build();
    }
}
