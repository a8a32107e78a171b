package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.SetattrField;
import org.xtreemfs.interfaces.mrc.SetattrRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_SETATTR: chmod, chown, utimes and truncate by path (SETATTR_SIZE starts a new truncate epoch). */
public final class SetattrOp extends MetadataOp<SetattrRequest, Stat> {
    public SetattrOp(OpServices services) {
        super(services, "MRC_SETATTR", SetattrRequest.parser(), ResultCodec.message(Stat.parser()));
    }

    @Override
    protected Stat apply(OperationContext context, SetattrRequest request) throws RpcException {
        return setattr(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getStat(),
                request.getToSet());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /**
     * Sets the fields of {@code requested} that {@code toSet} (SetattrField bits) names, with Linux's
     * permission rules (module README, "Permission model"); ctime becomes now unless set explicitly.
     * Returns the new Stat. One batch.
     */
    public static Stat setattr(Namespace namespace, OperationContext context, String volumeName, String path,
            Stat requested, int toSet) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Caller caller = context.caller();
        InodeRecord record = namespace.resolve(transaction, volume, caller, path);
        Stat current = record.stat();
        Stat.Builder stat = current.toBuilder();
        boolean directory = record.isDirectory();
        if (has(toSet, SetattrField.SETATTR_MODE)) {
            int permissions = requested.getMode() & FileModes.PERMISSION_MASK;
            if (!Permissions.isOwnerOrRoot(caller, current)) {
                checkPrivilegeDrop(caller, record, permissions, path);
            } else if (!caller.isRoot() && !directory && !caller.isInGroup(current.getGid())) {
                permissions &= ~FileModes.S_ISGID;
            }
            stat.setMode(FileModes.type(current.getMode()) | permissions);
        }
        if (has(toSet, SetattrField.SETATTR_UID) && requested.getUid() != current.getUid()) {
            if (!caller.isRoot()) {
                throw RpcException.errno(Errno.EPERM, "only root may change the owner of '" + path + "' to uid "
                        + Integer.toUnsignedString(requested.getUid()));
            }
            stat.setUid(requested.getUid());
        }
        if (has(toSet, SetattrField.SETATTR_GID) && requested.getGid() != current.getGid()) {
            boolean ownerInGroup = caller.uid() == current.getUid() && caller.isInGroup(requested.getGid());
            if (!caller.isRoot() && !ownerInGroup) {
                throw RpcException.errno(Errno.EPERM, "uid " + caller.uid() + " may not change the group of '"
                        + path + "' to gid " + Integer.toUnsignedString(requested.getGid())
                        + " (only root, or the owner to one of its groups)");
            }
            stat.setGid(requested.getGid());
        }
        if ((has(toSet, SetattrField.SETATTR_UID) || has(toSet, SetattrField.SETATTR_GID)) && !caller.isRoot()) {
            if (!Permissions.isOwnerOrRoot(caller, current)) {
                throw RpcException.errno(Errno.EPERM, "uid " + caller.uid() + " may not chown '" + path + "'");
            }
        }
        // Linux (since 2.2.13) treats every chown(2) of a non-directory alike, also one by root or one
        // that keeps the owner: the privilege bits go even when no id changes.
        boolean chown = has(toSet, SetattrField.SETATTR_UID) || has(toSet, SetattrField.SETATTR_GID);
        if (chown && !directory) {
            stat.setMode(stat.getMode() & ~privilegeBitsDroppedByChown(caller, stat.getMode(), current.getGid()));
        }
        InodeRecord updated = record;
        if (has(toSet, SetattrField.SETATTR_SIZE)) {
            if (directory) {
                throw RpcException.errno(Errno.EISDIR, "cannot truncate directory '" + path + "'");
            }
            if (!record.isRegularFile()) {
                throw RpcException.errno(Errno.EINVAL, "cannot truncate '" + path + "': not a regular file");
            }
            Permissions.check(caller, current, Permissions.WRITE, path);
            int epoch = record.issuedTruncateEpoch() + 1;
            updated = updated.withIssuedTruncateEpoch(epoch);
            stat.setSizeBytes(requested.getSizeBytes()).setTruncateEpoch(epoch)
                    .setMtimeNs(context.nowNanos());
        }
        boolean atimeNow = has(toSet, SetattrField.SETATTR_ATIME_NOW);
        boolean mtimeNow = has(toSet, SetattrField.SETATTR_MTIME_NOW);
        boolean explicitTimes = (has(toSet, SetattrField.SETATTR_ATIME) && !atimeNow)
                || (has(toSet, SetattrField.SETATTR_MTIME) && !mtimeNow) || has(toSet, SetattrField.SETATTR_CTIME);
        if (explicitTimes && !Permissions.isOwnerOrRoot(caller, current)) {
            throw RpcException.errno(Errno.EPERM, "only the owner (uid " + current.getUid()
                    + ") or root may set explicit times on '" + path + "'");
        }
        if ((atimeNow || mtimeNow) && !Permissions.isOwnerOrRoot(caller, current)
                && !Permissions.allows(caller, current, Permissions.WRITE)) {
            throw RpcException.errno(Errno.EACCES, "permission denied: setting times on '" + path
                    + "' needs ownership or write access");
        }
        if (atimeNow) {
            stat.setAtimeNs(context.nowNanos());
        } else if (has(toSet, SetattrField.SETATTR_ATIME)) {
            stat.setAtimeNs(requested.getAtimeNs());
        }
        if (mtimeNow) {
            stat.setMtimeNs(context.nowNanos());
        } else if (has(toSet, SetattrField.SETATTR_MTIME)) {
            stat.setMtimeNs(requested.getMtimeNs());
        }
        stat.setCtimeNs(has(toSet, SetattrField.SETATTR_CTIME) ? requested.getCtimeNs() : context.nowNanos());
        updated = updated.withStat(Namespace.withBlocks(stat.build()));
        namespace.putInode(transaction, volume.getId(), updated);
        transaction.commit();
        return updated.stat();
    }

    /**
     * A mode change by a caller that is neither the owner nor root is allowed only when it clears setuid
     * and/or setgid of a regular file the caller may write, and changes no other bit; anything else is
     * EPERM. The Linux kernel sends exactly this through FUSE before a write or truncate by such a caller
     * (file_remove_privs: ATTR_KILL_SUID/ATTR_KILL_SGID become a SETATTR of the mode with the writer's
     * credentials, unless the file system negotiated FUSE_CAP_HANDLE_KILLPRIV); refusing it would make
     * the write fail. Clearing the bits only lowers privileges, and the caller may rewrite the file anyway.
     */
    private static void checkPrivilegeDrop(Caller caller, InodeRecord record, int permissions, String path)
            throws RpcException {
        int currentPermissions = record.mode() & FileModes.PERMISSION_MASK;
        int cleared = currentPermissions & ~permissions;
        boolean onlyClearsPrivileges = (permissions & ~currentPermissions) == 0 && cleared != 0
                && (cleared & ~(FileModes.S_ISUID | FileModes.S_ISGID)) == 0;
        if (!record.isRegularFile() || !onlyClearsPrivileges
                || !Permissions.allows(caller, record.stat(), Permissions.WRITE)) {
            throw RpcException.errno(Errno.EPERM, "only the owner (uid " + record.stat().getUid()
                    + ") or root may chmod '" + path + "' (others with write access may only clear setuid/setgid"
                    + " of a regular file)");
        }
    }

    /**
     * The bits a chown of a non-directory clears, as Linux 6.x: setuid always (root included); setgid when
     * group-execute is set (a real setgid program), or when a non-root caller is not in the file's group
     * {@code gid}; setgid without group-execute (a mandatory-locking mark) stays otherwise.
     */
    private static int privilegeBitsDroppedByChown(Caller caller, int mode, int gid) {
        int dropped = FileModes.S_ISUID;
        if ((mode & FileModes.S_IXGRP) != 0 || (!caller.isRoot() && !caller.isInGroup(gid))) {
            dropped |= FileModes.S_ISGID;
        }
        return dropped;
    }

    private static boolean has(int toSet, SetattrField field) {
        return (toSet & field.getNumber()) != 0;
    }
}
