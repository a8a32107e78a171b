package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.FillReplicaRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/**
 * OSD_FILL_REPLICA: fills this OSD's copy of a file that joined its chain as a filling replica; answered when every
 * object of its stripe position is copied (replication.ReplicaFiller).
 */
public final class FillReplicaOp extends QueuedOp<FillReplicaRequest> {
    public FillReplicaOp(PreprocessingStage pipeline) {
        super(pipeline, FillReplicaRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, FillReplicaRequest request) throws RpcException {
        return new OsdRequest.FillReplica(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                Requests.unsignedLong(request.getRateBytesPerSecond(), "rate_bytes_per_second"));
    }
}
