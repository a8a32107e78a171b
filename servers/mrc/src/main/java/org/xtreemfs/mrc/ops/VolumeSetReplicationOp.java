package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeSetReplicationRequest;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.metadata.VolumeValidation;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;

/**
 * MRC_VOLUME_SET_REPLICATION: changes a volume's replication policy, which new files get (owner or root); existing
 * files keep their replicas (change those per file: MRC_ADD_REPLICA / MRC_REMOVE_REPLICA). The count is checked by
 * the one rule (ReplicationRules, through VolumeValidation) and, like at creation, against the OSDs a volume without
 * a reservation may use (VolumeCreateOp's placeability rule). A reserved volume is refused: its replicas were
 * admitted with it (not supported yet).
 */
public final class VolumeSetReplicationOp extends MetadataOp<VolumeSetReplicationRequest, Volume> {
    public VolumeSetReplicationOp(OpServices services) {
        super(services, "MRC_VOLUME_SET_REPLICATION", VolumeSetReplicationRequest.parser(),
                ResultCodec.message(Volume.parser()));
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context,
            VolumeSetReplicationRequest request) {
        return services.osds().allForAdmission()
                .thenApply(all -> context.withOsds(all.stream().map(OsdCandidate::of).toList()));
    }

    @Override
    protected Volume apply(OperationContext context, VolumeSetReplicationRequest request) throws RpcException {
        return described(setReplication(services.namespace(), services.policies(), context, request.getVolumeName(),
                request.getReplicationPolicy()), context);
    }

    @Override
    protected MessageLite answer(RpcCall call, Volume volume) {
        return volume;
    }

    /** Stores the volume's new replication policy for new files. */
    public static Volume setReplication(Namespace namespace, OsdSelectionPolicies policies, OperationContext context,
            String volumeName, ReplicationPolicy requested) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Permissions.checkVolumeOwnerOrRoot(context.caller(), volume, "change the replication of");
        ReplicationPolicy policy = VolumeValidation.normalizeReplication(requested);
        if (volume.getReservation().getType() != QosType.QOS_TYPE_UNSPECIFIED) {
            throw RpcException.errno(Errno.ENOTSUP, "cannot change the replication of volume '" + volumeName + "': it"
                    + " has a reservation, admitted with its replica count; changing it online is not supported yet");
        }
        Volume changed = volume.toBuilder().setDefaultReplicationPolicy(policy).build();
        VolumeCreateOp.requirePlaceableWidth(policies, context.osds(), changed);
        Transaction transaction = namespace.begin();
        namespace.putVolume(transaction, changed);
        transaction.commit();
        return changed;
    }
}
