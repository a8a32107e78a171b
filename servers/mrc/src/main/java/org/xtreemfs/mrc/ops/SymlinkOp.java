package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;

/** MRC_SYMLINK: a symbolic link whose content is target_path. */
public final class SymlinkOp extends MetadataOp<LinkRequest> {
    public SymlinkOp(OpServices services) {
        super(services, "MRC_SYMLINK", LinkRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, LinkRequest request) throws Exception {
        return GetattrResponse.newBuilder().setStat(services.namespace().symlink(context, request.getVolumeName(),
                request.getTargetPath(), request.getLinkPath())).build();
    }
}
