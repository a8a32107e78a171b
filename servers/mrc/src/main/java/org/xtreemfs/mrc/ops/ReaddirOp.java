package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.ReaddirRequest;

/** MRC_READDIR: one page of a directory in name order, "." and ".." first. */
public final class ReaddirOp extends MetadataOp<ReaddirRequest> {
    public ReaddirOp(OpServices services) {
        super(services, "MRC_READDIR", ReaddirRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, ReaddirRequest request) throws Exception {
        return services.namespace().readdir(context, request.getVolumeName(), request.getPath(),
                request.getOffset(), request.getLimit(), request.getNamesOnly());
    }
}
