package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.AccessRequest;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_ACCESS: access(2) against the caller's uid and groups. */
public final class AccessOp extends MetadataOp<AccessRequest> {
    public AccessOp(OpServices services) {
        super(services, "MRC_ACCESS", AccessRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, AccessRequest request) throws Exception {
        services.namespace().access(context, request.getVolumeName(), request.getPath(), request.getMode());
        return Empty.getDefaultInstance();
    }
}
