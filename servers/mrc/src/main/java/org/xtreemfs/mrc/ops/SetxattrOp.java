package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_SETXATTR: sets a user.* attribute (XATTR_CREATE / XATTR_REPLACE honoured). */
public final class SetxattrOp extends MetadataOp<XattrRequest> {
    public SetxattrOp(OpServices services) {
        super(services, "MRC_SETXATTR", XattrRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, XattrRequest request) throws Exception {
        services.namespace().setxattr(context, request.getVolumeName(), request.getPath(), request.getName(),
                request.getValue().toByteArray(), request.getFlags());
        return Empty.getDefaultInstance();
    }
}
