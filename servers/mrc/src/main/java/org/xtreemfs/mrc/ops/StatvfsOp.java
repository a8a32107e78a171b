package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MRC_STATVFS: the volume's space from the OSDs' last reports to the DIR (a fixed fallback without). */
public final class StatvfsOp extends MetadataOp<VolumeNameRequest> {
    public StatvfsOp(OpServices services) {
        super(services, "MRC_STATVFS", VolumeNameRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeNameRequest request) {
        return withOsds(context);
    }

    @Override
    protected MessageLite apply(RpcCall call, OperationContext context, VolumeNameRequest request) throws Exception {
        return services.namespace().statvfs(context, request.getVolumeName());
    }
}
