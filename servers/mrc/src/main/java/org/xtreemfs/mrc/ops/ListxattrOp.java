package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.XattrNames;

/** MRC_LISTXATTR: the stored attribute names of a path. */
public final class ListxattrOp extends MetadataOp<PathRequest> {
    public ListxattrOp(OpServices services) {
        super(services, "MRC_LISTXATTR", PathRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, PathRequest request) throws Exception {
        return XattrNames.newBuilder().addAllNames(services.namespace().listxattr(context,
                request.getVolumeName(), request.getPath())).build();
    }
}
