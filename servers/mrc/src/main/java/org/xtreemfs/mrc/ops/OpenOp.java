package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.mrc.metadata.OpenResult;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_OPEN: opens or creates a file. Prepare fetches the online OSDs (cached) in case the file needs a
 * layout; apply creates/truncates and places it; the answer carries the XLoc and a signed XCap whose
 * truncate epoch is the file's current one. Directories and special files get a Stat and no credentials.
 */
public final class OpenOp extends MetadataOp<OpenRequest> {
    public OpenOp(OpServices services) {
        super(services, "MRC_OPEN", OpenRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, OpenRequest request) {
        return withOsds(context);
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, OpenRequest request) throws Exception {
        OpenResult opened = services.namespace().open(context, request.getVolumeName(), request.getPath(),
                request.getFlags(), request.getMode());
        OpenResponse.Builder response = OpenResponse.newBuilder().setStat(opened.record().stat());
        if (opened.credentialsNeeded()) {
            XCap capability = services.capabilities().issue(opened.volumeId(), opened.record().inode(),
                    opened.accessMode(), opened.record().issuedTruncateEpoch(), call.remoteAddress());
            response.setCredentials(services.capabilities().credentials(capability, opened.record().xlocs()));
        }
        return response.build();
    }
}
