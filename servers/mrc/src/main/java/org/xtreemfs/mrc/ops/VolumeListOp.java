package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeList;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MRC_VOLUME_LIST: every volume of this MRC, by name, with its placement if it has a reservation. */
public final class VolumeListOp extends MetadataOp<Empty, VolumeList> {
    public VolumeListOp(OpServices services) {
        super(services, "MRC_VOLUME_LIST", Empty.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, Empty request) {
        return withOsds(context);
    }

    @Override
    protected VolumeList apply(OperationContext context, Empty request) {
        VolumeList.Builder list = VolumeList.newBuilder();
        for (Volume volume : services.namespace().listVolumes()) {
            list.addVolumes(described(volume, context));
        }
        return list.build();
    }

    @Override
    protected MessageLite answer(RpcCall call, VolumeList list) {
        return list;
    }
}
