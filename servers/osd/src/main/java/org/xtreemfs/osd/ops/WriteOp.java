package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_WRITE: the call's data segment written at an offset within one object. */
public final class WriteOp extends QueuedOp<WriteRequest> {
    public WriteOp(PreprocessingStage pipeline) {
        super(pipeline, new SharedCredentialsParser<>(WriteRequest.parser(), (credentials, rest, registry) ->
                WriteRequest.newBuilder().setCredentials(credentials).mergeFrom(rest, registry).build()));
    }

    @Override
    OsdRequest toRequest(RpcCall call, WriteRequest request) throws RpcException {
        return new OsdRequest.WriteObject(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                Requests.unsignedLong(request.getObjectNumber(), "object number"),
                Requests.unsignedInt(request.getOffset(), "offset"), request.getSync(), call.data(),
                request.getForwarded());
    }
}
