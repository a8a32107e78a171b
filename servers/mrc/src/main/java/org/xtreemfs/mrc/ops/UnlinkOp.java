package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_UNLINK: removes a name. When the last link goes, the same batch records the file's deletion, and the MRC has
 * the OSDs delete its objects in the background ({@link ObjectDeletions}); the caller waits for no OSD. The answer
 * carries the directory's attributes as the unlink left them, which the FUSE kernel asks for right after every unlink
 * (its permission check of the next path through the directory), so the mount needs no MRC_GETATTR for them.
 */
public final class UnlinkOp extends MetadataOp<PathRequest, UnlinkOp.Unlinked> {
    /**
     * The recorded outcome is empty: a repeat is answered without the directory's attributes, which may have changed
     * since (the client then asks for them), and nothing after the commit needs the deleted file (the batch itself
     * hands it to the object deletions). Why not the deleted file with its XLoc, as before: serialising it again for a
     * record nobody reads cost CPU and bytes per unlink. Records of the old format decode the same way.
     */
    private static final ResultCodec<Unlinked> OUTCOME = new ResultCodec<>() {
        @Override
        public byte[] encode(Unlinked result) {
            return new byte[0];
        }

        @Override
        public Unlinked decode(byte[] bytes) {
            return new Unlinked(Optional.empty(), Optional.empty());
        }
    };

    /** What an unlink did: the file whose last link went (if it had objects), and its directory's new Stat. */
    public record Unlinked(Optional<DeletedFile> deleted, Optional<Stat> directory) {
    }

    public UnlinkOp(OpServices services) {
        super(services, "MRC_UNLINK", PathRequest.parser(), OUTCOME);
    }

    @Override
    protected Unlinked apply(OperationContext context, PathRequest request) throws RpcException {
        return removeName(services.namespace(), context, request.getVolumeName(), request.getPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, Unlinked unlinked) {
        UnlinkResponse.Builder response = UnlinkResponse.newBuilder();
        unlinked.directory().ifPresent(response::setDirectoryStat);
        return response.build();
    }

    /**
     * Removes a non-directory's name (EISDIR for directories); returns the file when it was the last link
     * and had a layout (its objects are now garbage; the batch records their deletion). One batch.
     */
    public static Optional<DeletedFile> unlink(Namespace namespace, OperationContext context, String volumeName,
            String path) throws RpcException {
        return removeName(namespace, context, volumeName, path).deleted();
    }

    /** {@link #unlink}, also returning the directory's Stat as the batch leaves it (what getattr answers after it). */
    static Unlinked removeName(Namespace namespace, OperationContext context, String volumeName, String path)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        Namespace.Entry entry = namespace.resolveRemoved(transaction, volume, caller, path, "unlink");
        if (entry.record().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "unlink: '" + path + "' is a directory");
        }
        Namespace.checkRemovable(caller, entry, path);
        namespace.deleteDentry(transaction, volume.getId(), entry.parent().inode(), entry.name());
        Optional<DeletedFile> deleted = namespace.dropLink(transaction, volume.getId(), entry.record(), context);
        Stat directory = namespace.touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context)
                .stat();
        transaction.commit();
        return new Unlinked(deleted, Optional.of(directory));
    }
}
