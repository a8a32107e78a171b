package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.osd.CopyObjectRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/**
 * OSD_COPY_OBJECT: one object of a replica fill, copied from the fill source into this OSD's replica. A filling OSD
 * sends it to itself (replication.ReplicaFiller), so the copy is checked, queued and ordered like a write.
 */
public final class CopyObjectOp extends QueuedOp<CopyObjectRequest> {
    public CopyObjectOp(PreprocessingStage pipeline) {
        super(pipeline, CopyObjectRequest.parser());
    }

    @Override
    OsdRequest toRequest(RpcCall call, CopyObjectRequest request) throws RpcException {
        var replicas = request.getCredentials().getXlocs().getReplicasList();
        int objectSize = replicas.isEmpty() || replicas.get(0).getStripingPolicy().getObjectSizeBytes() == 0
                ? StripingRules.UNSET_OBJECT_SIZE_BYTES : replicas.get(0).getStripingPolicy().getObjectSizeBytes();
        return new OsdRequest.CopyObject(call, request.getCredentials(), Requests.fileId(request.getFileId()),
                Requests.unsignedLong(request.getObjectNumber(), "object number"), Math.max(0, objectSize));
    }
}
