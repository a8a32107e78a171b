package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.SetattrRequest;

/** MRC_SETATTR: chmod, chown, utimes and truncate by path (SETATTR_SIZE starts a new truncate epoch). */
public final class SetattrOp extends MetadataOp<SetattrRequest> {
    public SetattrOp(OpServices services) {
        super(services, "MRC_SETATTR", SetattrRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, SetattrRequest request) throws Exception {
        return GetattrResponse.newBuilder().setStat(services.namespace().setattr(context, request.getVolumeName(),
                request.getPath(), request.getStat(), request.getToSet())).build();
    }
}
