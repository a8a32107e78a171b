package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.StatvfsResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.PathNames;
import org.xtreemfs.mrc.placement.OsdCandidate;

/** MRC_STATVFS: the volume's space from the OSDs' last reports to the DIR (a fixed fallback without). */
public final class StatvfsOp extends MetadataOp<VolumeNameRequest, StatvfsResponse> {
    static final int STATVFS_BLOCK_SIZE = 4096;
    static final long FALLBACK_SPACE_BYTES = 1L << 40;
    static final long INODES_TOTAL = 1L << 32;

    public StatvfsOp(OpServices services) {
        super(services, "MRC_STATVFS", VolumeNameRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeNameRequest request) {
        return withOsds(context);
    }

    @Override
    protected StatvfsResponse apply(OperationContext context, VolumeNameRequest request) throws RpcException {
        return statvfs(services.namespace(), context, request.getVolumeName());
    }

    @Override
    protected MessageLite answer(RpcCall call, StatvfsResponse response) {
        return response;
    }

    /**
     * Space of the volume: the sum over the context's online OSDs that report space (1 TiB without any),
     * capped by the reservation's capacity; 4 KiB blocks. Reads only.
     */
    public static StatvfsResponse statvfs(Namespace namespace, OperationContext context, String volumeName)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        long total = 0;
        long free = 0;
        boolean reported = false;
        for (OsdCandidate osd : context.osds()) {
            if (osd.reportsSpace()) {
                total += osd.totalBytes();
                free += osd.freeBytes();
                reported = true;
            }
        }
        if (!reported) {
            total = FALLBACK_SPACE_BYTES;
            free = FALLBACK_SPACE_BYTES;
        }
        long capacity = volume.getReservation().getCapacityBytes();
        if (capacity > 0) {
            total = Math.min(total, capacity);
            free = Math.min(free, capacity);
        }
        long usedInodes = namespace.allocatedInodes(volume.getId());
        return StatvfsResponse.newBuilder()
                .setBlockSize(STATVFS_BLOCK_SIZE)
                .setTotalBlocks(total / STATVFS_BLOCK_SIZE)
                .setFreeBlocks(free / STATVFS_BLOCK_SIZE)
                .setAvailableBlocks(free / STATVFS_BLOCK_SIZE)
                .setTotalInodes(INODES_TOTAL)
                .setFreeInodes(Math.max(0, INODES_TOTAL - usedInodes))
                .setNameMax(PathNames.NAME_BYTES_MAX)
                .setVolumeId(volume.getId())
                .build();
    }
}
