package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;

/** MRC_GETATTR: the attributes of a path (search permission on every directory on the way). */
public final class GetattrOp extends MetadataOp<PathRequest> {
    public GetattrOp(OpServices services) {
        super(services, "MRC_GETATTR", PathRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, PathRequest request) throws Exception {
        return GetattrResponse.newBuilder()
                .setStat(services.namespace().getattr(context, request.getVolumeName(), request.getPath())).build();
    }
}
