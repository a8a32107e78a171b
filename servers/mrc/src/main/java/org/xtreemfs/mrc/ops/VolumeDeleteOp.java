package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_VOLUME_DELETE: removes the volume's metadata (owner or root) and releases its reservation, then
 * deregisters it at the DIR, which keeps the id as deleted: the OSDs learn it with their heartbeats and
 * remove the files' objects in the background (servers/osd/README.md, "Deleted volumes").
 */
public final class VolumeDeleteOp extends MetadataOp<VolumeNameRequest, Empty> {
    private static final Logger LOG = LoggerFactory.getLogger(VolumeDeleteOp.class);

    public VolumeDeleteOp(OpServices services) {
        super(services, "MRC_VOLUME_DELETE", VolumeNameRequest.parser(), ResultCodec.message(Empty.parser()));
    }

    @Override
    protected Empty apply(OperationContext context, VolumeNameRequest request) throws RpcException {
        deleteVolume(services.namespace(), services.ledger(), context, request.getVolumeName());
        return Empty.getDefaultInstance();
    }

    @Override
    protected CompletableFuture<Empty> afterCommit(VolumeNameRequest request, Empty result) {
        return services.dir().deregisterVolume(request.getVolumeName()).handle((ignored, error) -> {
            if (error != null) {
                LOG.warn("volume '{}' deleted but the DIR did not deregister it: {}", request.getVolumeName(),
                        error.toString());
            }
            return result;
        });
    }

    @Override
    protected MessageLite answer(RpcCall call, Empty result) {
        return result;
    }

    /** Deletes every record of the volume and its ledger entries in one batch; returns the deleted volume. */
    public static Volume deleteVolume(Namespace namespace, ReservationLedger ledger, OperationContext context,
            String volumeName) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Permissions.checkVolumeOwnerOrRoot(context.caller(), volume, "delete");
        Transaction transaction = namespace.begin();
        namespace.deleteVolumeRecords(transaction, volume);
        LedgerChange release = ledger.release(volume.getId());
        release.forEachWrite(transaction::write);
        transaction.commit();
        ledger.publish(release);
        return volume;
    }
}
