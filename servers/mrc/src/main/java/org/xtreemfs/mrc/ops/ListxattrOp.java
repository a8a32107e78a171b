package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.XattrNames;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MRC_LISTXATTR: the stored attribute names of a path. */
public final class ListxattrOp extends MetadataOp<PathRequest, List<String>> {
    public ListxattrOp(OpServices services) {
        super(services, "MRC_LISTXATTR", PathRequest.parser());
    }

    /** Reads only: served on the network thread (MetadataOp#readsOnly). */
    @Override
    protected boolean readsOnly(PathRequest request) {
        return true;
    }

    @Override
    protected List<String> apply(OperationContext context, PathRequest request) throws RpcException {
        return listxattr(services.namespace(), context, request.getVolumeName(), request.getPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, List<String> names) {
        return XattrNames.newBuilder().addAllNames(names).build();
    }

    /**
     * The stored attribute names (user.*), sorted; the read-only xtreemfs.* attributes are not listed (so
     * copy tools do not try to set them). Reads only.
     */
    public static List<String> listxattr(Namespace namespace, OperationContext context, String volumeName,
            String path) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        InodeRecord record = namespace.resolve(namespace.begin(), volume, context.caller(), path);
        return namespace.xattrNames(volume.getId(), record.inode());
    }
}
