package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_REMOVEXATTR: removes a user.* attribute (ENODATA when absent). */
public final class RemovexattrOp extends MetadataOp<XattrRequest> {
    public RemovexattrOp(OpServices services) {
        super(services, "MRC_REMOVEXATTR", XattrRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, XattrRequest request) throws Exception {
        services.namespace().removexattr(context, request.getVolumeName(), request.getPath(), request.getName());
        return Empty.getDefaultInstance();
    }
}
