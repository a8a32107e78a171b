package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * MRC_GET_FILE_LAYOUT (for xtfsutil): volume, file id, XLoc (empty for directories and files never
 * opened), Stat, and the volume's reservation with its placement.
 */
public final class GetFileLayoutOp extends MetadataOp<PathRequest, FileLayoutResponse> {
    public GetFileLayoutOp(OpServices services) {
        super(services, "MRC_GET_FILE_LAYOUT", PathRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, PathRequest request) {
        return withOsds(context);
    }

    @Override
    protected FileLayoutResponse apply(OperationContext context, PathRequest request) throws RpcException {
        Volume volume = described(services.namespace().volume(request.getVolumeName()), context);
        InodeRecord record = services.namespace().resolve(services.namespace().begin(), volume, context.caller(),
                request.getPath());
        return FileLayoutResponse.newBuilder()
                .setVolumeId(volume.getId())
                .setVolumeName(volume.getName())
                .setFileId(FileIds.fileId(volume.getId(), record.inode()))
                .setXlocs(record.xlocs())
                .setStat(record.stat())
                .setReservation(volume.getReservation())
                .setPlacement(volume.getPlacement())
                .build();
    }

    @Override
    protected MessageLite answer(RpcCall call, FileLayoutResponse response) {
        return response;
    }
}
