package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XCapResponse;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * MRC_FTRUNCATE: first step of truncating an open file. Needs a write XCap (verified in prepare); apply
 * issues the next truncate epoch, and the answer returns the XCap re-signed with it (and with the volume's
 * current reservation share). The client then sends
 * OSD_TRUNCATE with the new size and this XCap to every OSD of the stripe, and MRC_UPDATE_FILE_SIZE with
 * the new size and epoch, which sets the size outright because its epoch is newer than the size's
 * (README, "Truncate").
 */
public final class FtruncateOp extends MetadataOp<XCapRequest, FtruncateOp.Truncation> {
    /** The verified capability, the epoch apply issued for it and the volume's current reservation share. */
    public record Truncation(XCapRequest request, int truncateEpoch, Optional<VolumeShare> share) {}

    public FtruncateOp(OpServices services) {
        super(services, "MRC_FTRUNCATE", XCapRequest.parser(), ResultCodec.TRUNCATION);
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, XCapRequest request) {
        return withVerifiedCapability(context, request.getXcap(), true);
    }

    @Override
    protected Truncation apply(OperationContext context, XCapRequest request) throws RpcException {
        FileIds.ParsedFileId file = FileIds.parse(request.getXcap().getFileId());
        return new Truncation(request, beginTruncate(services.namespace(), file.volumeId(), file.inode()),
                services.ledger().share(file.volumeId()));
    }

    @Override
    protected MessageLite answer(RpcCall call, Truncation truncation) {
        return XCapResponse.newBuilder().setXcap(services.capabilities().withTruncateEpoch(
                truncation.request().getXcap(), truncation.truncateEpoch(), truncation.share())).build();
    }

    /** Records the file's next truncate epoch as issued and returns it; ENOENT for a deleted file. One batch. */
    public static int beginTruncate(Namespace namespace, String volumeId, long inode) throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        int epoch = record.issuedTruncateEpoch() + 1;
        namespace.putInode(transaction, volumeId, record.withIssuedTruncateEpoch(epoch));
        transaction.commit();
        return epoch;
    }
}
