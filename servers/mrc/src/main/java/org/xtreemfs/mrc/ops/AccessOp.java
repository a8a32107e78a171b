package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.AccessRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;

/** MRC_ACCESS: access(2) against the caller's uid and groups. */
public final class AccessOp extends MetadataOp<AccessRequest, Empty> {
    public AccessOp(OpServices services) {
        super(services, "MRC_ACCESS", AccessRequest.parser());
    }

    /** Reads only: served on the network thread (MetadataOp#readsOnly). */
    @Override
    protected boolean readsOnly(AccessRequest request) {
        return true;
    }

    @Override
    protected Empty apply(OperationContext context, AccessRequest request) throws RpcException {
        access(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getMode());
        return Empty.getDefaultInstance();
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /** EACCES naming the missing access unless the caller may access the path with {@code mode} (R=4 W=2 X=1). */
    public static void access(Namespace namespace, OperationContext context, String volumeName, String path,
            int mode) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        InodeRecord record = namespace.resolve(namespace.begin(), volume, context.caller(), path);
        if ((mode & ~7) != 0) {
            throw RpcException.errno(Errno.EINVAL, "invalid access mode " + mode + " for '" + path + "'");
        }
        Permissions.check(context.caller(), record.stat(), mode & 7, path);
    }
}
