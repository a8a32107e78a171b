package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_RMDIR: removes an empty directory. */
public final class RmdirOp extends MetadataOp<PathRequest, Empty> {
    public RmdirOp(OpServices services) {
        super(services, "MRC_RMDIR", PathRequest.parser(), ResultCodec.message(Empty.parser()));
    }

    @Override
    protected Empty apply(OperationContext context, PathRequest request) throws RpcException {
        rmdir(services.namespace(), context, request.getVolumeName(), request.getPath());
        return Empty.getDefaultInstance();
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /** ENOTDIR for non-directories, ENOTEMPTY, EBUSY for the root, EINVAL for "."; lowers the parent's nlink. */
    public static void rmdir(Namespace namespace, OperationContext context, String volumeName, String path)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        Namespace.Entry entry = namespace.resolveExisting(transaction, volume, caller, path, "rmdir");
        InodeRecord target = entry.record();
        if (!target.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "rmdir: '" + path + "' is not a directory");
        }
        Namespace.checkRemovable(caller, entry, path);
        if (namespace.hasEntries(volume.getId(), target.inode())) {
            throw RpcException.errno(Errno.ENOTEMPTY, "rmdir: directory '" + path + "' is not empty");
        }
        namespace.deleteDentry(transaction, volume.getId(), entry.parent().inode(), entry.name());
        namespace.deleteInode(transaction, volume.getId(), target.inode());
        namespace.touchDirectory(transaction, volume.getId(), entry.parent().inode(), -1, context);
        transaction.commit();
    }
}
