package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_UNLINK: removes a name. When the last link goes, the same batch records the file's deletion, and the MRC has
 * the OSDs delete its objects in the background ({@link ObjectDeletions}); the answer is empty, and the caller waits
 * for no OSD.
 */
public final class UnlinkOp extends MetadataOp<PathRequest, Optional<DeletedFile>> {
    public UnlinkOp(OpServices services) {
        super(services, "MRC_UNLINK", PathRequest.parser(), ResultCodec.DELETED);
    }

    @Override
    protected Optional<DeletedFile> apply(OperationContext context, PathRequest request) throws RpcException {
        return unlink(services.namespace(), context, request.getVolumeName(), request.getPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, Optional<DeletedFile> deleted) {
        return UnlinkResponse.getDefaultInstance();
    }

    /**
     * Removes a non-directory's name (EISDIR for directories); returns the file when it was the last link
     * and had a layout (its objects are now garbage; the batch records their deletion). One batch.
     */
    public static Optional<DeletedFile> unlink(Namespace namespace, OperationContext context, String volumeName,
            String path) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        Namespace.Entry entry = namespace.resolveExisting(transaction, volume, caller, path, "unlink");
        if (entry.record().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "unlink: '" + path + "' is a directory");
        }
        Namespace.checkRemovable(caller, entry, path);
        namespace.deleteDentry(transaction, volume.getId(), entry.parent().inode(), entry.name());
        Optional<DeletedFile> deleted = namespace.dropLink(transaction, volume.getId(), entry.record().inode(),
                context);
        namespace.touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context);
        transaction.commit();
        return deleted;
    }
}
