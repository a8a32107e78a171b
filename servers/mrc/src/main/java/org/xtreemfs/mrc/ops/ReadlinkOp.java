package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.ReadlinkResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MRC_READLINK: the content of a symbolic link. */
public final class ReadlinkOp extends MetadataOp<PathRequest, String> {
    public ReadlinkOp(OpServices services) {
        super(services, "MRC_READLINK", PathRequest.parser());
    }

    /** Reads only: served on the network thread (MetadataOp#readsOnly). */
    @Override
    protected boolean readsOnly(PathRequest request) {
        return true;
    }

    @Override
    protected String apply(OperationContext context, PathRequest request) throws RpcException {
        return readlink(services.namespace(), context, request.getVolumeName(), request.getPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, String target) {
        return ReadlinkResponse.newBuilder().setTarget(target).build();
    }

    /** The link's target; EINVAL when the path is not a symbolic link. Reads only. */
    public static String readlink(Namespace namespace, OperationContext context, String volumeName, String path)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        InodeRecord record = namespace.resolve(namespace.begin(), volume, context.caller(), path);
        if (!record.isSymlink()) {
            throw RpcException.errno(Errno.EINVAL, "readlink: '" + path + "' is not a symbolic link");
        }
        return record.symlinkTarget();
    }
}
