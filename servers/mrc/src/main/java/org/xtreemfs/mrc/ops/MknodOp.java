package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MknodRequest;

/** MRC_MKNOD: creates a FIFO, socket, device node (metadata only) or empty regular file. */
public final class MknodOp extends MetadataOp<MknodRequest> {
    public MknodOp(OpServices services) {
        super(services, "MRC_MKNOD", MknodRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, MknodRequest request) throws Exception {
        return GetattrResponse.newBuilder().setStat(services.namespace().mknod(context, request.getVolumeName(),
                request.getPath(), request.getMode(), request.getRdev())).build();
    }
}
