package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_REMOVEXATTR: removes a user.* attribute (ENODATA when absent). */
public final class RemovexattrOp extends MetadataOp<XattrRequest, Empty> {
    public RemovexattrOp(OpServices services) {
        super(services, "MRC_REMOVEXATTR", XattrRequest.parser(), ResultCodec.message(Empty.parser()));
    }

    @Override
    protected Empty apply(OperationContext context, XattrRequest request) throws RpcException {
        removexattr(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getName());
        return Empty.getDefaultInstance();
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /** Deletes the attribute and stamps ctime. One batch. */
    public static void removexattr(Namespace namespace, OperationContext context, String volumeName, String path,
            String name) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.resolve(transaction, volume, context.caller(), path);
        XattrRules.checkWritable(context.caller(), record, path, name);
        if (namespace.xattr(transaction, volume.getId(), record.inode(), name).isEmpty()) {
            throw RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "'");
        }
        namespace.removeXattr(transaction, volume.getId(), record, name, context);
        transaction.commit();
    }
}
