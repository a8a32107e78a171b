package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_RENAME: atomic rename within a volume (EXDEV across volumes). When it replaces the last link of a
 * file, the batch records that file's deletion, as for unlink ({@link ObjectDeletions}).
 */
public final class RenameOp extends MetadataOp<RenameRequest, Optional<DeletedFile>> {
    public static final int RENAME_NOREPLACE = 1;
    public static final int RENAME_EXCHANGE = 2;

    public RenameOp(OpServices services) {
        super(services, "MRC_RENAME", RenameRequest.parser(), ResultCodec.DELETED);
    }

    @Override
    protected Optional<DeletedFile> apply(OperationContext context, RenameRequest request) throws RpcException {
        return rename(services.namespace(), context, request.getVolumeName(), request.getSourcePath(),
                request.getTargetPath(), request.getFlags(), request.getTargetVolumeName());
    }

    @Override
    protected MessageLite answer(RpcCall call, Optional<DeletedFile> deleted) {
        return UnlinkResponse.getDefaultInstance();
    }

    /**
     * Atomic rename within one volume, as Linux renameat2: replaces a file or an empty directory,
     * RENAME_NOREPLACE fails with EEXIST, RENAME_EXCHANGE swaps. Returns the replaced file when its last
     * link went away. One batch.
     */
    public static Optional<DeletedFile> rename(Namespace namespace, OperationContext context, String volumeName,
            String sourcePath, String targetPath, int flags, String targetVolumeName) throws RpcException {
        if (!targetVolumeName.isEmpty() && !targetVolumeName.equals(volumeName)) {
            throw RpcException.errno(Errno.EXDEV, "cannot rename '" + sourcePath + "' from volume '" + volumeName
                    + "' to volume '" + targetVolumeName + "'");
        }
        if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) != 0
                || flags == (RENAME_NOREPLACE | RENAME_EXCHANGE)) {
            throw RpcException.errno(Errno.EINVAL, "invalid rename flags " + flags);
        }
        Volume volume = namespace.volume(volumeName);
        String volumeId = volume.getId();
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        Namespace.Entry source = namespace.resolveExisting(transaction, volume, caller, sourcePath, "rename");
        Namespace.Entry target = namespace.resolveEntry(transaction, volume, caller, targetPath, "rename");
        InodeRecord moved = source.record();
        Optional<InodeRecord> replaced = Optional.ofNullable(target.record());
        Namespace.checkRemovable(caller, source, sourcePath);
        Permissions.check(caller, target.parent().stat(), Permissions.WRITE | Permissions.EXECUTE,
                Namespace.parentPath(targetPath));
        if (replaced.isPresent()) {
            Permissions.checkSticky(caller, target.parent().stat(), replaced.get().stat(), targetPath);
        }
        if (replaced.isPresent() && replaced.get().inode() == moved.inode()) {
            return Optional.empty();
        }
        if ((flags & RENAME_EXCHANGE) != 0) {
            if (replaced.isEmpty()) {
                throw RpcException.errno(Errno.ENOENT, "rename exchange: no such file or directory: '"
                        + targetPath + "'");
            }
            exchange(namespace, transaction, volumeId, caller, source, target, context, sourcePath, targetPath);
            transaction.commit();
            return Optional.empty();
        }
        if (replaced.isPresent() && (flags & RENAME_NOREPLACE) != 0) {
            throw RpcException.errno(Errno.EEXIST, "rename: '" + targetPath + "' exists (RENAME_NOREPLACE)");
        }
        if (moved.isDirectory()) {
            if (replaced.isPresent() && !replaced.get().isDirectory()) {
                throw RpcException.errno(Errno.ENOTDIR, "rename: directory '" + sourcePath
                        + "' cannot replace non-directory '" + targetPath + "'");
            }
            checkNotUnderItself(namespace, transaction, volumeId, moved.inode(), target.parent().inode(), sourcePath,
                    targetPath);
            if (source.parent().inode() != target.parent().inode()) {
                Permissions.check(caller, moved.stat(), Permissions.WRITE, sourcePath);
            }
        } else if (replaced.isPresent() && replaced.get().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "rename: non-directory '" + sourcePath
                    + "' cannot replace directory '" + targetPath + "'");
        }
        if (replaced.isPresent() && replaced.get().isDirectory()
                && namespace.hasEntries(volumeId, replaced.get().inode())) {
            throw RpcException.errno(Errno.ENOTEMPTY, "rename: target directory '" + targetPath + "' is not empty");
        }
        Optional<DeletedFile> deleted = Optional.empty();
        if (replaced.isPresent()) {
            if (replaced.get().isDirectory()) {
                namespace.deleteInode(transaction, volumeId, replaced.get().inode());
                namespace.touchDirectory(transaction, volumeId, target.parent().inode(), -1, context);
            } else {
                deleted = namespace.dropLink(transaction, volumeId, replaced.get().inode(), context);
            }
        }
        namespace.deleteDentry(transaction, volumeId, source.parent().inode(), source.name());
        namespace.putDentry(transaction, volumeId, target.parent().inode(), target.name(), moved.inode());
        InodeRecord movedNow = namespace.loadInode(transaction, volumeId, moved.inode());
        if (moved.isDirectory()) {
            movedNow = movedNow.withParent(target.parent().inode());
            if (source.parent().inode() != target.parent().inode()) {
                namespace.touchDirectory(transaction, volumeId, source.parent().inode(), -1, context);
                namespace.touchDirectory(transaction, volumeId, target.parent().inode(), +1, context);
            }
        }
        namespace.putInode(transaction, volumeId, movedNow.withStat(movedNow.stat().toBuilder()
                .setCtimeNs(context.nowNanos()).build()));
        namespace.touchDirectory(transaction, volumeId, source.parent().inode(), 0, context);
        namespace.touchDirectory(transaction, volumeId, target.parent().inode(), 0, context);
        transaction.commit();
        return deleted;
    }

    /** RENAME_EXCHANGE: the two names swap inodes; directories moving across parents adjust both nlinks. */
    private static void exchange(Namespace namespace, Transaction transaction, String volumeId, Caller caller,
            Namespace.Entry source, Namespace.Entry target, OperationContext context, String sourcePath,
            String targetPath) throws RpcException {
        InodeRecord first = source.record();
        InodeRecord second = target.record();
        boolean sameParent = source.parent().inode() == target.parent().inode();
        if (first.isDirectory()) {
            checkNotUnderItself(namespace, transaction, volumeId, first.inode(), target.parent().inode(), sourcePath,
                    targetPath);
            if (!sameParent) {
                Permissions.check(caller, first.stat(), Permissions.WRITE, sourcePath);
            }
        }
        if (second.isDirectory()) {
            checkNotUnderItself(namespace, transaction, volumeId, second.inode(), source.parent().inode(), targetPath,
                    sourcePath);
            if (!sameParent) {
                Permissions.check(caller, second.stat(), Permissions.WRITE, targetPath);
            }
        }
        namespace.putDentry(transaction, volumeId, source.parent().inode(), source.name(), second.inode());
        namespace.putDentry(transaction, volumeId, target.parent().inode(), target.name(), first.inode());
        if (!sameParent) {
            int shift = (first.isDirectory() ? 1 : 0) - (second.isDirectory() ? 1 : 0);
            namespace.touchDirectory(transaction, volumeId, source.parent().inode(), -shift, context);
            namespace.touchDirectory(transaction, volumeId, target.parent().inode(), shift, context);
        } else {
            namespace.touchDirectory(transaction, volumeId, source.parent().inode(), 0, context);
        }
        for (InodeRecord record : List.of(first, second)) {
            InodeRecord current = namespace.loadInode(transaction, volumeId, record.inode());
            if (record.isDirectory()) {
                current = current.withParent(record == first ? target.parent().inode() : source.parent().inode());
            }
            namespace.putInode(transaction, volumeId, current.withStat(current.stat().toBuilder()
                    .setCtimeNs(context.nowNanos()).build()));
        }
    }

    /**
     * EINVAL when {@code directoryInode} is {@code newParent} or one of its ancestors. The walk ends at the
     * root; a chain that comes back to an inode already seen is a corrupt store (reported, never looped on).
     */
    private static void checkNotUnderItself(Namespace namespace, Transaction transaction, String volumeId,
            long directoryInode, long newParent, String sourcePath, String targetPath) throws RpcException {
        Set<Long> seen = new HashSet<>();
        for (long current = newParent; current != Namespace.ROOT_INODE;
                current = namespace.loadInode(transaction, volumeId, current).parentInode()) {
            if (current == directoryInode) {
                throw RpcException.errno(Errno.EINVAL, "rename: cannot move directory '" + sourcePath
                        + "' under itself ('" + targetPath + "')");
            }
            if (!seen.add(current)) {
                throw RpcException.internal("directory parent chain of inode " + newParent
                        + " loops at inode " + current);
            }
        }
    }
}
