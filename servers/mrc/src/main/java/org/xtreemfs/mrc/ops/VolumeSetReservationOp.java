package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeSetReservationRequest;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.mrc.metadata.VolumeValidation;
import org.xtreemfs.qos.model.Reservation;

/**
 * MRC_VOLUME_SET_RESERVATION: changes a volume's reservation online (owner or root). The new figures are
 * re-admitted on the OSDs the volume is placed on, against every OSD's latest profile from the DIR; the
 * volume stays usable throughout, and a change that does not fit fails with ENOSPC and the reason.
 */
public final class VolumeSetReservationOp extends MetadataOp<VolumeSetReservationRequest, Volume> {
    public VolumeSetReservationOp(OpServices services) {
        super(services, "MRC_VOLUME_SET_RESERVATION", VolumeSetReservationRequest.parser(), ResultCodec.message(Volume.parser()));
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context,
            VolumeSetReservationRequest request) {
        return withOsdReports(context);
    }

    @Override
    protected Volume apply(OperationContext context, VolumeSetReservationRequest request) throws RpcException {
        return described(changeReservation(services.namespace(), services.ledger(), context, request.getVolumeName(),
                request.getReservation()), context);
    }

    @Override
    protected MessageLite answer(RpcCall call, Volume volume) {
        return volume;
    }

    /**
     * Re-admits the volume's reservation with the new figures on the OSDs it is placed on (the type cannot
     * change online); the volume record and the ledger change commit in one batch.
     */
    public static Volume changeReservation(Namespace namespace, ReservationLedger ledger, OperationContext context,
            String volumeName, QosReservation requested) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Permissions.checkVolumeOwnerOrRoot(context.caller(), volume, "change the reservation of");
        Reservation reservation = VolumeValidation.checkReservation(requested).orElseThrow(() ->
                RpcException.invalidArguments("volume '" + volumeName + "': a reservation cannot be removed or"
                        + " made best-effort without capacity online"));
        Optional<Reservation> current = VolumeValidation.checkReservation(volume.getReservation());
        if (current.isPresent() && current.get().type() != reservation.type()) {
            throw RpcException.invalidArguments("volume '" + volumeName + "' has a " + current.get()
                    + " reservation; its type cannot change to " + reservation.type() + " online");
        }
        ReservationLedger.Decision decision = ledger.readmit(volume.getId(), volumeName, reservation,
                context.osdReports());
        if (decision instanceof ReservationLedger.Decision.Refused refused) {
            throw RpcException.errno(Errno.ENOSPC, refused.reason());
        }
        LedgerChange change = ((ReservationLedger.Decision.Admitted) decision).change();
        Volume changed = volume.toBuilder().setReservation(QosWire.toWire(reservation)).build();
        Transaction transaction = namespace.begin();
        namespace.putVolume(transaction, changed);
        change.forEachWrite(transaction::write);
        transaction.commit();
        ledger.publish(change);
        return changed;
    }
}
