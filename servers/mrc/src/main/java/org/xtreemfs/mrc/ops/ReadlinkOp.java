package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.ReadlinkResponse;

/** MRC_READLINK: the content of a symbolic link. */
public final class ReadlinkOp extends MetadataOp<PathRequest> {
    public ReadlinkOp(OpServices services) {
        super(services, "MRC_READLINK", PathRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, PathRequest request) throws Exception {
        return ReadlinkResponse.newBuilder().setTarget(services.namespace().readlink(context,
                request.getVolumeName(), request.getPath())).build();
    }
}
