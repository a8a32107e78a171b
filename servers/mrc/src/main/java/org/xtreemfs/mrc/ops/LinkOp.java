package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;

/** MRC_LINK: a hard link to an existing non-directory. */
public final class LinkOp extends MetadataOp<LinkRequest> {
    public LinkOp(OpServices services) {
        super(services, "MRC_LINK", LinkRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, LinkRequest request) throws Exception {
        return GetattrResponse.newBuilder().setStat(services.namespace().link(context, request.getVolumeName(),
                request.getTargetPath(), request.getLinkPath())).build();
    }
}
