package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_UNLINK: removes a name. When the last link goes, the answer carries {@code deleted_file}: the XLoc
 * and a write XCap with which the client sends OSD_UNLINK to every OSD of the stripe.
 */
public final class UnlinkOp extends MetadataOp<PathRequest> {
    public UnlinkOp(OpServices services) {
        super(services, "MRC_UNLINK", PathRequest.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, PathRequest request) throws Exception {
        Optional<DeletedFile> deleted = services.namespace().unlink(context, request.getVolumeName(),
                request.getPath());
        return response(services.capabilities(), deleted, call.remoteAddress());
    }

    static UnlinkResponse response(CapabilityIssuer capabilities, Optional<DeletedFile> deleted, String client) {
        UnlinkResponse.Builder response = UnlinkResponse.newBuilder();
        deleted.ifPresent(file -> {
            XCap capability = capabilities.issue(file.volumeId(), file.inode(), AccessMode.ACCESS_MODE_READ_WRITE,
                    file.truncateEpoch(), client);
            response.setDeletedFile(capabilities.credentials(capability, file.xlocs()));
        });
        return response.build();
    }
}
