package org.xtreemfs.mrc.ops;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.mrc.XattrValue;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.LayoutAttributes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_GETXATTR: a user.* attribute or a read-only xtreemfs.* layout attribute. */
public final class GetxattrOp extends MetadataOp<XattrRequest, byte[]> {
    public GetxattrOp(OpServices services) {
        super(services, "MRC_GETXATTR", XattrRequest.parser());
    }

    /** Reads only: served on the network thread (MetadataOp#readsOnly). */
    @Override
    protected boolean readsOnly(XattrRequest request) {
        return true;
    }

    @Override
    protected byte[] apply(OperationContext context, XattrRequest request) throws RpcException {
        return getxattr(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getName());
    }

    @Override
    protected MessageLite answer(RpcCall call, byte[] value) {
        return XattrValue.newBuilder().setValue(ByteString.copyFrom(value)).build();
    }

    /** The value; ENODATA naming the attribute when absent. user.* needs read access. Reads only. */
    public static byte[] getxattr(Namespace namespace, OperationContext context, String volumeName, String path,
            String name) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.resolve(transaction, volume, context.caller(), path);
        if (name.startsWith(XattrRules.XTREEMFS_XATTR_PREFIX)) {
            return LayoutAttributes.value(volume, record, name)
                    .orElseThrow(() -> RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '"
                            + path + "'"));
        }
        if (name.startsWith(XattrRules.USER_XATTR_PREFIX)) {
            Permissions.check(context.caller(), record.stat(), Permissions.READ, path);
        }
        return namespace.xattr(transaction, volume.getId(), record.inode(), name)
                .orElseThrow(() -> RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "'"));
    }
}
