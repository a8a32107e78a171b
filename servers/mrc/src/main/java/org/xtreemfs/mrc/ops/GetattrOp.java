package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MRC_GETATTR: the attributes of a path (search permission on every directory on the way). */
public final class GetattrOp extends MetadataOp<PathRequest, Stat> {
    public GetattrOp(OpServices services) {
        super(services, "MRC_GETATTR", PathRequest.parser());
    }

    /** Reads only: served on the network thread (MetadataOp#readsOnly). */
    @Override
    protected boolean readsOnly(PathRequest request) {
        return true;
    }

    @Override
    protected Stat apply(OperationContext context, PathRequest request) throws RpcException {
        return getattr(services.namespace(), context, request.getVolumeName(), request.getPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /** Reads only. */
    public static Stat getattr(Namespace namespace, OperationContext context, String volumeName, String path)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        return namespace.resolve(namespace.begin(), volume, context.caller(), path).stat();
    }
}
