package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import com.google.protobuf.ByteString;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.mrc.XattrValue;

/** MRC_GETXATTR: a user.* attribute or a read-only xtreemfs.* layout attribute. */
public final class GetxattrOp extends MetadataOp<XattrRequest> {
    public GetxattrOp(OpServices services) {
        super(services, "MRC_GETXATTR", XattrRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, XattrRequest request) throws Exception {
        return XattrValue.newBuilder().setValue(ByteString.copyFrom(services.namespace().getxattr(context,
                request.getVolumeName(), request.getPath(), request.getName()))).build();
    }
}
