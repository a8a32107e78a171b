package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XCapResponse;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_RENEW_CAPABILITY: a valid (signed, unexpired: checked in prepare) XCap of a file that still exists
 * (checked in apply) comes back with a new expiry (signed in the answer) and the volume's reservation share
 * as the ledger holds it now (read in apply), so a reservation changed online reaches the OSDs with the next
 * renewal; every other field, including the truncate epoch, is kept.
 */
public final class RenewCapabilityOp extends MetadataOp<XCapRequest, WithShare<XCapRequest>> {
    public RenewCapabilityOp(OpServices services) {
        super(services, "MRC_RENEW_CAPABILITY", XCapRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, XCapRequest request) {
        return withVerifiedCapability(context, request.getXcap(), false);
    }

    @Override
    protected WithShare<XCapRequest> apply(OperationContext context, XCapRequest request) throws RpcException {
        FileIds.ParsedFileId file = FileIds.parse(request.getXcap().getFileId());
        services.namespace().inodeOf(services.namespace().begin(), file.volumeId(), file.inode());
        return new WithShare<>(request, services.ledger().share(file.volumeId()));
    }

    @Override
    protected MessageLite answer(RpcCall call, WithShare<XCapRequest> renewal) {
        return XCapResponse.newBuilder().setXcap(services.capabilities().renew(renewal.value().getXcap(),
                renewal.share())).build();
    }
}
