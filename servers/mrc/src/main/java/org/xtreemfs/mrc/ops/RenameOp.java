package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_RENAME: atomic rename within a volume (EXDEV across volumes). When it replaces the last link of a
 * file the answer carries {@code deleted_file}, as for unlink.
 */
public final class RenameOp extends MetadataOp<RenameRequest> {
    public RenameOp(OpServices services) {
        super(services, "MRC_RENAME", RenameRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, RenameRequest request) throws Exception {
        return UnlinkOp.response(services.capabilities(), services.namespace().rename(context,
                request.getVolumeName(), request.getSourcePath(), request.getTargetPath(), request.getFlags(),
                request.getTargetVolumeName()), call.remoteAddress());
    }
}
