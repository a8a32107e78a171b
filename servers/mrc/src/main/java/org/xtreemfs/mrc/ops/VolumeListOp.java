package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.interfaces.mrc.VolumeList;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_VOLUME_LIST: every volume of this MRC, by name. */
public final class VolumeListOp extends MetadataOp<Empty> {
    public VolumeListOp(OpServices services) {
        super(services, "MRC_VOLUME_LIST", Empty.parser());
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, Empty request) throws Exception {
        return VolumeList.newBuilder().addAllVolumes(services.namespace().listVolumes()).build();
    }
}
