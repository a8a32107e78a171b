package org.xtreemfs.osd.replication;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.mrc.ReplicaFailedRequest;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;

/**
 * A file's current XLoc as its volume's MRC holds it (MRC_REPLICA_FAILED without an OSD), asked with the XCap the
 * request carries (already verified here, and checked again by the MRC) and the caller's credentials. The MRC of a
 * volume comes from the DIR's volume registrations (cached per volume id; its address through the UUID resolver).
 */
public final class MrcXLocSource implements XLocConfirmations.XLocSource {
    private final DirServiceClient dir;
    private final UuidResolver resolver;
    private final MrcServiceClient mrc;
    private final Map<String, String> mrcUuidByVolumeId = new ConcurrentHashMap<>();

    public MrcXLocSource(DirServiceClient dir, UuidResolver resolver, MrcServiceClient mrc) {
        this.dir = dir;
        this.resolver = resolver;
        this.mrc = mrc;
    }

    @Override
    public CompletableFuture<XLocSet> current(AuthorizedRequest request) {
        ReplicaFailedRequest ask = ReplicaFailedRequest.newBuilder()
                .setXcap(request.request().credentials().getXcap())
                .setXlocVersion(request.request().credentials().getXlocs().getVersion()).build();
        // The capability's volume, not request.volumeId(): that is the fair-queue flow, "<volume>/fill" for a
        // replica fill's copies.
        String volumeId = request.request().credentials().getXcap().getVolumeId();
        return mrcUuid(volumeId).thenCompose(mrcUuid -> resolver.resolve(mrcUuid)
                .thenCompose(address -> mrc.replicaFailed(address, request.request().call().userCredentials(), ask))
                .whenComplete((ignored, error) -> {
                    if (error != null && unwrap(error) instanceof RpcTransportException) {
                        resolver.invalidate(mrcUuid);
                        mrcUuidByVolumeId.remove(volumeId);
                    }
                }));
    }

    private CompletableFuture<String> mrcUuid(String volumeId) {
        String known = mrcUuidByVolumeId.get(volumeId);
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        return dir.volumeList().thenApply(volumes -> {
            for (VolumeRegistration volume : volumes.getVolumesList()) {
                if (volume.getVolumeId().equals(volumeId)) {
                    mrcUuidByVolumeId.put(volumeId, volume.getMrcUuid());
                    return volume.getMrcUuid();
                }
            }
            throw new CompletionException(RpcException.errno(Errno.ENOENT, "the DIR has no volume " + volumeId));
        });
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
