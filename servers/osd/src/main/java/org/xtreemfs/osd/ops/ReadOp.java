package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** OSD_READ: the stored bytes of a range of one object (short at the end of stored data). */
public final class ReadOp extends QueuedOp<ReadRequest> {
    public ReadOp(PreprocessingStage pipeline) {
        super(pipeline, new SharedCredentialsParser<>(ReadRequest.parser(), (credentials, rest, registry) ->
                ReadRequest.newBuilder().setCredentials(credentials).mergeFrom(rest, registry).build()));
    }

    @Override
    OsdRequest toRequest(RpcCall call, ReadRequest request) throws RpcException {
        return new OsdRequest.ReadObject(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                Requests.unsignedLong(request.getObjectNumber(), "object number"),
                Requests.unsignedInt(request.getOffset(), "offset"),
                Requests.unsignedInt(request.getLength(), "length"), request.getReplicaFill());
    }
}
