package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MkdirRequest;

/** MRC_MKDIR: creates a directory (mode as given; the client applies its umask). */
public final class MkdirOp extends MetadataOp<MkdirRequest> {
    public MkdirOp(OpServices services) {
        super(services, "MRC_MKDIR", MkdirRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, MkdirRequest request) throws Exception {
        return GetattrResponse.newBuilder().setStat(services.namespace().mkdir(context, request.getVolumeName(),
                request.getPath(), request.getMode())).build();
    }
}
