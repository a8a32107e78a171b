package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_UNLINK: removes a name. When the last link goes, the answer carries {@code deleted_file}: the XLoc
 * and a write XCap (issued in the answer, after apply) with which the client sends OSD_UNLINK to every
 * OSD of the stripe.
 */
public final class UnlinkOp extends MetadataOp<PathRequest, WithShare<Optional<DeletedFile>>> {
    public UnlinkOp(OpServices services) {
        super(services, "MRC_UNLINK", PathRequest.parser(), ResultCodec.DELETED);
    }

    @Override
    protected WithShare<Optional<DeletedFile>> apply(OperationContext context, PathRequest request)
            throws RpcException {
        return withShare(services.ledger(), unlink(services.namespace(), context, request.getVolumeName(),
                request.getPath()));
    }

    @Override
    protected MessageLite answer(RpcCall call, WithShare<Optional<DeletedFile>> deleted) {
        return response(services.capabilities(), deleted, call.remoteAddress());
    }

    /** A deleted file with its volume's reservation share, for the capability of its answer; on the metadata thread. */
    static WithShare<Optional<DeletedFile>> withShare(ReservationLedger ledger, Optional<DeletedFile> deleted) {
        return new WithShare<>(deleted, deleted.flatMap(file -> ledger.share(file.volumeId())));
    }

    /** The answer of unlink and rename: {@code deleted_file} with a READ_WRITE XCap when a file went away. */
    static UnlinkResponse response(CapabilityIssuer capabilities, WithShare<Optional<DeletedFile>> deleted,
            String client) {
        UnlinkResponse.Builder response = UnlinkResponse.newBuilder();
        deleted.value().ifPresent(file -> {
            XCap capability = capabilities.issue(file.volumeId(), file.inode(), AccessMode.ACCESS_MODE_READ_WRITE,
                    file.truncateEpoch(), client, deleted.share());
            response.setDeletedFile(capabilities.credentials(capability, file.xlocs()));
        });
        return response.build();
    }

    /**
     * Removes a non-directory's name (EISDIR for directories); returns the file when it was the last link
     * and had a layout (its objects are now garbage). One batch.
     */
    public static Optional<DeletedFile> unlink(Namespace namespace, OperationContext context, String volumeName,
            String path) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        Namespace.Entry entry = namespace.resolveExisting(transaction, volume, caller, path, "unlink");
        if (entry.record().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "unlink: '" + path + "' is a directory");
        }
        Namespace.checkRemovable(caller, entry, path);
        namespace.deleteDentry(transaction, volume.getId(), entry.parent().inode(), entry.name());
        Optional<DeletedFile> deleted = namespace.dropLink(transaction, volume.getId(), entry.record().inode(),
                context);
        namespace.touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context);
        transaction.commit();
        return deleted;
    }
}
