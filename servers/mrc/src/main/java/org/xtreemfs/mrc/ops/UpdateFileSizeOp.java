package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.UpdateFileSizeRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_UPDATE_FILE_SIZE: a writer reports the file size (on fsync and close) with a write XCap (verified in
 * prepare). The epoch is {@code new_file_size.truncate_epoch} and may not exceed the XCap's. Older than
 * the file's size epoch: ignored; newer: sets the size (completes a truncate); equal: grows the size only.
 */
public final class UpdateFileSizeOp extends MetadataOp<UpdateFileSizeRequest, Empty> {
    public UpdateFileSizeOp(OpServices services) {
        super(services, "MRC_UPDATE_FILE_SIZE", UpdateFileSizeRequest.parser(), ResultCodec.message(Empty.parser()));
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, UpdateFileSizeRequest request) {
        return withVerifiedCapability(context, request.getXcap(), true);
    }

    @Override
    protected Empty apply(OperationContext context, UpdateFileSizeRequest request) throws RpcException {
        FileIds.ParsedFileId file = FileIds.parse(request.getXcap().getFileId());
        int epoch = request.getNewFileSize().getTruncateEpoch();
        if (Integer.compareUnsigned(epoch, request.getXcap().getTruncateEpoch()) > 0) {
            throw RpcException.invalidArguments("new_file_size.truncate_epoch " + Integer.toUnsignedString(epoch)
                    + " is newer than the XCap's " + request.getXcap().getTruncateEpoch() + " for file "
                    + request.getXcap().getFileId());
        }
        updateFileSize(services.namespace(), context, file.volumeId(), file.inode(),
                request.getNewFileSize().getSizeBytes(), epoch, request.getCloseFile());
        return Empty.getDefaultInstance();
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /**
     * Applies a size a client reports. An epoch older than the newest issued truncate epoch is ignored
     * (a truncate happened or is under way); an epoch newer than the size's epoch sets the size
     * outright (it completes that truncate); the size's own epoch only grows the size. Returns whether
     * the size changed. Every report that is not stale, and every close, sets mtime and ctime (one batch).
     */
    public static boolean updateFileSize(Namespace namespace, OperationContext context, String volumeId, long inode,
            long sizeBytes, int truncateEpoch, boolean closeAfterWrite) throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        Stat stat = record.stat();
        if (Integer.compareUnsigned(truncateEpoch, record.issuedTruncateEpoch()) > 0) {
            throw RpcException.invalidArguments("truncate epoch " + Integer.toUnsignedString(truncateEpoch)
                    + " of file " + FileIds.fileId(volumeId, inode) + " was never issued (latest "
                    + record.issuedTruncateEpoch() + ")");
        }
        boolean stale = Integer.compareUnsigned(truncateEpoch, record.issuedTruncateEpoch()) < 0;
        boolean changes;
        if (stale) {
            changes = false;
        } else if (Integer.compareUnsigned(truncateEpoch, stat.getTruncateEpoch()) > 0) {
            changes = true;
        } else {
            changes = Long.compareUnsigned(sizeBytes, stat.getSizeBytes()) > 0;
        }
        // Clients report only after writing (on fsync, flush and close), so a report that is not stale
        // is a write: it stamps mtime and ctime even when the size stays (overwriting in place).
        if (stale && !closeAfterWrite) {
            return false;
        }
        Stat.Builder updated = stat.toBuilder().setMtimeNs(context.nowNanos()).setCtimeNs(context.nowNanos());
        if (changes) {
            updated.setSizeBytes(sizeBytes).setTruncateEpoch(truncateEpoch);
        }
        namespace.putInode(transaction, volumeId, record.withStat(Namespace.withBlocks(updated.build())));
        transaction.commit();
        return changes;
    }
}
