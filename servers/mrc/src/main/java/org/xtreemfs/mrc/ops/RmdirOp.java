package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_RMDIR: removes an empty directory. */
public final class RmdirOp extends MetadataOp<PathRequest> {
    public RmdirOp(OpServices services) {
        super(services, "MRC_RMDIR", PathRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, PathRequest request) throws Exception {
        services.namespace().rmdir(context, request.getVolumeName(), request.getPath());
        return Empty.getDefaultInstance();
    }
}
