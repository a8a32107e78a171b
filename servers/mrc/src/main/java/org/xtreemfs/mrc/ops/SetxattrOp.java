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

/** MRC_SETXATTR: sets a user.* attribute (XATTR_CREATE / XATTR_REPLACE honoured). */
public final class SetxattrOp extends MetadataOp<XattrRequest, Empty> {
    public static final int XATTR_VALUE_BYTES_MAX = 64 * 1024;
    public static final int XATTR_CREATE = 1;
    public static final int XATTR_REPLACE = 2;
    /** errno of a value over {@link #XATTR_VALUE_BYTES_MAX} (not in foundation's Errno). */
    public static final int E2BIG = 7;

    public SetxattrOp(OpServices services) {
        super(services, "MRC_SETXATTR", XattrRequest.parser(), ResultCodec.message(Empty.parser()));
    }

    @Override
    protected Empty apply(OperationContext context, XattrRequest request) throws RpcException {
        setxattr(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getName(),
                request.getValue().toByteArray(), request.getFlags());
        return Empty.getDefaultInstance();
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /** Stores the value and stamps ctime; XATTR_CREATE → EEXIST, XATTR_REPLACE of a missing one → ENODATA. */
    public static void setxattr(Namespace namespace, OperationContext context, String volumeName, String path,
            String name, byte[] value, int flags) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.resolve(transaction, volume, context.caller(), path);
        XattrRules.checkWritable(context.caller(), record, path, name);
        if (value.length > XATTR_VALUE_BYTES_MAX) {
            throw RpcException.errno(E2BIG, "value of attribute '" + name + "' has " + value.length
                    + " bytes, more than " + XATTR_VALUE_BYTES_MAX);
        }
        if ((flags & ~(XATTR_CREATE | XATTR_REPLACE)) != 0 || flags == (XATTR_CREATE | XATTR_REPLACE)) {
            throw RpcException.errno(Errno.EINVAL, "invalid setxattr flags " + flags);
        }
        boolean exists = namespace.xattr(transaction, volume.getId(), record.inode(), name).isPresent();
        if (exists && (flags & XATTR_CREATE) != 0) {
            throw RpcException.errno(Errno.EEXIST, "attribute '" + name + "' exists on '" + path + "' (XATTR_CREATE)");
        }
        if (!exists && (flags & XATTR_REPLACE) != 0) {
            throw RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "' (XATTR_REPLACE)");
        }
        namespace.setXattr(transaction, volume.getId(), record, name, value, context);
        transaction.commit();
    }
}
