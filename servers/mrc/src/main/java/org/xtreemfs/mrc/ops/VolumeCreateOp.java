package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.metadata.VolumeValidation;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.qos.model.Reservation;

/**
 * MRC_VOLUME_CREATE: validates the volume, admits its reservation (if any) against the OSDs the DIR reports
 * and stores both in one batch, then registers it at the DIR. A refused reservation fails with ENOSPC and the
 * scheduler's reason. If the DIR does not answer, the volume exists at the MRC and the call fails saying so;
 * the MRC registers all its volumes again when it starts.
 */
public final class VolumeCreateOp extends MetadataOp<VolumeCreateRequest, Volume> {
    public VolumeCreateOp(OpServices services) {
        super(services, "MRC_VOLUME_CREATE", VolumeCreateRequest.parser(), ResultCodec.message(Volume.parser()));
    }

    /**
     * A volume with a reservation is admitted against every OSD the DIR knows, fetched fresh; a best-effort volume
     * whose files need more than one OSD (striped or replicated) is checked against them too ({@link #requirePlaceableWidth}).
     */
    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, VolumeCreateRequest request) {
        OperationContext withId = context.withGeneratedId(services.volumeIds().get());
        Volume volume = request.getVolume();
        if (volume.getReservation().getType() != QosType.QOS_TYPE_UNSPECIFIED) {
            return withOsdReports(withId);
        }
        if ((long) volume.getDefaultStripingPolicy().getWidth()
                * ReplicationRules.replicas(volume.getDefaultReplicationPolicy()) > 1) {
            return services.osds().allForAdmission()
                    .thenApply(all -> withId.withOsds(all.stream().map(OsdCandidate::of).toList()));
        }
        return CompletableFuture.completedFuture(withId);
    }

    @Override
    protected Volume apply(OperationContext context, VolumeCreateRequest request) throws RpcException {
        requirePlaceableWidth(services.policies(), context.osds(), request.getVolume());
        return described(createVolume(services.namespace(), services.ledger(), services.policies(), context,
                request.getVolume(), context.generatedId()), context);
    }

    /**
     * Refuses a best-effort volume whose files need more distinct OSDs (stripe width times replicas) than the
     * registered OSDs (dead ones included: they may come back) that files of a volume without a reservation may
     * use ({@link OsdSelectionPolicies#bestEffortCandidates}: best-effort and untyped OSDs, or all with
     * mrc.placement.bestEffortOnTypedOsds): every file created in it would fail with ENOSPC. One OSD is always
     * allowed, so a volume can be made before its cluster's OSDs start; a reserved volume's width is the admitted
     * placement's (admission checks its replicas).
     */
    static void requirePlaceableWidth(OsdSelectionPolicies policies, List<OsdCandidate> registered, Volume request)
            throws RpcException {
        int width = request.getDefaultStripingPolicy().getWidth();
        int replicas = ReplicationRules.replicas(request.getDefaultReplicationPolicy());
        long osdsNeeded = (long) width * replicas;
        if (osdsNeeded <= 1 || request.getReservation().getType() != QosType.QOS_TYPE_UNSPECIFIED
                || ReplicationRules.replicasProblem(replicas).isPresent()) {
            return; // a bad replica count is refused by the volume's validation, naming it
        }
        int usable = policies.bestEffortCandidates(registered).size();
        if (osdsNeeded <= usable) {
            return;
        }
        String need = replicas == 1 ? "striping width " + width + " is more than the " + usable
                : replicas + " replicas of striping width " + width + " need " + osdsNeeded
                        + " distinct OSDs but there are only the " + usable;
        throw RpcException.invalidArguments(need + " OSD(s) registered at the DIR that a volume without a"
                + " reservation may use (of " + registered.size() + " registered), so no file of the volume could"
                + " be placed; " + (replicas == 1 ? "give at most " + Math.max(1, usable) + " or " : "")
                + "start more such OSDs first");
    }

    @Override
    protected CompletableFuture<Volume> afterCommit(VolumeCreateRequest request, Volume volume) {
        return services.dir().registerVolume(volume).handle((ignored, error) -> {
            if (error != null) {
                throw new CompletionException(RpcException.internal("volume '"
                        + volume.getName() + "' (" + volume.getId() + ") was created at the MRC but the DIR did not"
                        + " register it: " + toRpcException(error).getMessage()
                        + "; the MRC registers it again when it restarts"));
            }
            return volume;
        });
    }

    @Override
    protected MessageLite answer(RpcCall call, Volume volume) {
        return volume;
    }

    /**
     * Creates a volume and its root directory. {@code volumeId} comes from the prepare step (a random
     * UUID); the owner is the caller unless the request names one. A reservation is admitted by the
     * {@code ledger} (which chooses the stripe); the volume, its root and the ledger's change commit in one
     * batch, and the ledger publishes the change only after that commit.
     */
    public static Volume createVolume(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            OperationContext context, Volume request, String volumeId) throws RpcException {
        VolumeValidation.checkVolumeName(request.getName());
        Optional<Reservation> reservation = VolumeValidation.checkReservation(request.getReservation());
        if (policies.find(request.getOsdSelectionPolicy()).isEmpty()) {
            throw RpcException.invalidArguments("unknown osd_selection_policy '" + request.getOsdSelectionPolicy()
                    + "'; known: " + policies.names());
        }
        Transaction transaction = namespace.begin();
        if (namespace.volumeNameTaken(transaction, request.getName())) {
            throw RpcException.errno(Errno.EEXIST, "volume '" + request.getName() + "' already exists");
        }
        ReplicationPolicy replication = VolumeValidation.normalizeReplication(request.getDefaultReplicationPolicy());
        StripingPolicy striping = VolumeValidation.normalizeStriping(request.getDefaultStripingPolicy(),
                reservation.isPresent(), replication.getReplicas() > 1);
        LedgerChange admission = null;
        if (reservation.isPresent()) {
            // The scheduler chooses the stripe; the volume's files are striped over exactly its OSDs, one stripe
            // per replica.
            ReservationLedger.Decision decision = ledger.admit(volumeId, request.getName(), reservation.get(),
                    context.osdReports(), replication.getReplicas());
            if (decision instanceof ReservationLedger.Decision.Refused refused) {
                throw RpcException.errno(Errno.ENOSPC, refused.reason());
            }
            ReservationLedger.Decision.Admitted admitted = (ReservationLedger.Decision.Admitted) decision;
            admission = admitted.change();
            striping = striping.toBuilder().setWidth(admitted.placement().stripeWidth()).build();
        }
        Volume.Builder volume = request.toBuilder()
                .setId(volumeId)
                .setDefaultStripingPolicy(striping)
                .setDefaultReplicationPolicy(replication)
                .setCreatedMs(context.nowNanos() / 1_000_000L);
        boolean ownerGiven = !request.getOwnerUsername().isEmpty() || request.getOwnerUid() != 0
                || request.getOwnerGid() != 0;
        if (!ownerGiven) {
            volume.setOwnerUsername(context.caller().username()).setOwnerUid(context.caller().uid())
                    .setOwnerGid(context.caller().gid());
        }
        int mode = request.getMode() == 0 ? VolumeValidation.VOLUME_MODE_DEFAULT : request.getMode();
        if ((mode & ~FileModes.PERMISSION_MASK) != 0) {
            throw RpcException.invalidArguments("invalid volume mode 0" + Integer.toOctalString(mode)
                    + ": only permission bits (07777) are allowed");
        }
        volume.setMode(mode);
        Volume created = volume.build();
        namespace.putVolume(transaction, created);
        namespace.putRootDirectory(transaction, volumeId, Stat.newBuilder()
                .setInode(Namespace.ROOT_INODE)
                .setMode(FileModes.S_IFDIR | mode)
                .setNlink(2)
                .setUid(created.getOwnerUid())
                .setGid(created.getOwnerGid())
                .setAtimeNs(context.nowNanos())
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .setBlksize(created.getDefaultStripingPolicy().getObjectSizeBytes())
                .build());
        if (admission != null) {
            admission.forEachWrite(transaction::write);
        }
        transaction.commit();
        if (admission != null) {
            ledger.publish(admission);
        }
        return created;
    }
}
