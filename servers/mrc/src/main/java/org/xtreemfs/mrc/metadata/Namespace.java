package org.xtreemfs.mrc.metadata;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.SetattrField;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.StatvfsResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.placement.NotEnoughOsdsException;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.placement.OsdSelectionPolicy;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * The MRC's volumes and namespace on a {@link KvStore}. Every public method is one metadata operation:
 * it reads the store, checks POSIX semantics and permissions against the context's caller, and commits
 * all its changes as ONE atomic write batch (or none, when it fails). Deterministic given the context
 * and the store's contents. Not thread-safe: the metadata stage calls it from a single thread, which
 * serialises operations.
 */
public final class Namespace {
    public static final long ROOT_INODE = 1;
    public static final int READDIR_LIMIT_DEFAULT = 1024;
    public static final int READDIR_LIMIT_MAX = 10_000;
    public static final int XATTR_VALUE_BYTES_MAX = 64 * 1024;
    public static final int XATTR_CREATE = 1;
    public static final int XATTR_REPLACE = 2;
    public static final int RENAME_NOREPLACE = 1;
    public static final int RENAME_EXCHANGE = 2;
    static final int E2BIG = 7;
    static final int EBUSY = 16;
    static final String USER_XATTR_PREFIX = "user.";
    static final String XTREEMFS_XATTR_PREFIX = "xtreemfs.";
    private static final int STATVFS_BLOCK_SIZE = 4096;
    private static final long FALLBACK_SPACE_BYTES = 1L << 40;
    private static final long INODES_TOTAL = 1L << 32;

    private final KvStore store;
    private final OsdSelectionPolicies policies;
    private final Durability durability;
    private final AtimePolicy atimePolicy;
    private final ReservationLedger ledger;

    public Namespace(KvStore store, OsdSelectionPolicies policies, Durability durability, AtimePolicy atimePolicy) {
        this.store = store;
        this.policies = policies;
        this.durability = durability;
        this.atimePolicy = atimePolicy;
        this.ledger = ReservationLedger.load(store, new ReservationScheduler());
    }

    /** The reservation ledger over the same store; used only on the metadata thread, like the namespace. */
    public ReservationLedger ledger() {
        return ledger;
    }

    // ---------------------------------------------------------------------------------------- volumes

    /**
     * Creates a volume and its root directory. {@code volumeId} comes from the prepare step (a random
     * UUID); the owner is the caller unless the request names one.
     */
    public Volume createVolume(OperationContext context, Volume request, String volumeId) throws RpcException {
        VolumeValidation.checkVolumeName(request.getName());
        Optional<Reservation> reservation = VolumeValidation.checkReservation(request.getReservation());
        if (policies.find(request.getOsdSelectionPolicy()).isEmpty()) {
            throw RpcException.invalidArguments("unknown osd_selection_policy '" + request.getOsdSelectionPolicy()
                    + "'; known: " + policies.names());
        }
        Transaction transaction = new Transaction(store);
        if (transaction.get(KvLayout.volumeName(request.getName())).isPresent()) {
            throw RpcException.errno(Errno.EEXIST, "volume '" + request.getName() + "' already exists");
        }
        StripingPolicy striping = VolumeValidation.normalizeStriping(request.getDefaultStripingPolicy());
        LedgerChange admission = null;
        if (reservation.isPresent()) {
            // The scheduler chooses the stripe; the volume's files are striped over exactly its OSDs.
            ReservationLedger.Decision decision = ledger.admit(volumeId, request.getName(), reservation.get(),
                    context.osdReports());
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
        transaction.put(KvLayout.volume(volumeId), created.toByteArray());
        transaction.put(KvLayout.volumeName(created.getName()), created.getId().getBytes(StandardCharsets.UTF_8));
        transaction.put(KvLayout.inodeCounter(volumeId), KvLayout.encodeLong(ROOT_INODE + 1));
        Stat root = Stat.newBuilder()
                .setInode(ROOT_INODE)
                .setMode(FileModes.S_IFDIR | mode)
                .setNlink(2)
                .setUid(created.getOwnerUid())
                .setGid(created.getOwnerGid())
                .setAtimeNs(context.nowNanos())
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .setBlksize(created.getDefaultStripingPolicy().getObjectSizeBytes())
                .build();
        putInode(transaction, volumeId, new InodeRecord(root, null, null, ROOT_INODE, 0));
        if (admission != null) {
            admission.forEachWrite((key, value) -> write(transaction, key, value));
        }
        transaction.commit(durability);
        if (admission != null) {
            ledger.publish(admission);
        }
        return created;
    }

    /** Deletes a volume's metadata (owner or root only). Objects on OSDs are not deleted (README). */
    public Volume deleteVolume(OperationContext context, String volumeName) throws RpcException {
        Volume volume = volume(volumeName);
        checkOwnerOrRoot(context.caller(), volume, "delete");
        Transaction transaction = new Transaction(store);
        String id = volume.getId();
        transaction.delete(KvLayout.volume(id));
        transaction.delete(KvLayout.volumeName(volumeName));
        transaction.delete(KvLayout.inodeCounter(id));
        for (byte kind : new byte[] {KvLayout.INODE, KvLayout.DENTRY, KvLayout.XATTR}) {
            try (KvIterator iterator = store.iterator(KvLayout.volumeRange(kind, id))) {
                while (iterator.hasNext()) {
                    transaction.delete(iterator.next().key());
                }
            }
        }
        LedgerChange release = ledger.release(id);
        release.forEachWrite((key, value) -> write(transaction, key, value));
        transaction.commit(durability);
        ledger.publish(release);
        return volume;
    }

    /**
     * Changes a volume's reservation online (owner or root only): the ledger re-admits it on the OSDs the
     * volume is placed on, and the volume record and the ledger change in one batch.
     */
    public Volume changeReservation(OperationContext context, String volumeName, QosReservation requested)
            throws RpcException {
        Volume volume = volume(volumeName);
        checkOwnerOrRoot(context.caller(), volume, "change the reservation of");
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
        Transaction transaction = new Transaction(store);
        transaction.put(KvLayout.volume(volume.getId()), changed.toByteArray());
        change.forEachWrite((key, value) -> write(transaction, key, value));
        transaction.commit(durability);
        ledger.publish(change);
        return changed;
    }

    private static void checkOwnerOrRoot(Caller caller, Volume volume, String action) throws RpcException {
        if (!caller.isRoot() && caller.uid() != volume.getOwnerUid()) {
            throw RpcException.errno(Errno.EPERM, "only the owner (uid " + volume.getOwnerUid()
                    + ") or root may " + action + " volume '" + volume.getName() + "'");
        }
    }

    public List<Volume> listVolumes() {
        List<Volume> volumes = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KvLayout.allVolumes())) {
            while (iterator.hasNext()) {
                volumes.add(parseVolume(iterator.next().value()));
            }
        }
        volumes.sort((a, b) -> a.getName().compareTo(b.getName()));
        return volumes;
    }

    /** The volume of that name; ENOENT naming it when there is none. */
    public Volume volume(String volumeName) throws RpcException {
        Optional<byte[]> id = store.get(KvLayout.volumeName(volumeName));
        if (id.isEmpty()) {
            throw RpcException.errno(Errno.ENOENT, "no such volume: '" + volumeName + "'");
        }
        return volumeById(new String(id.get(), StandardCharsets.UTF_8)).orElseThrow(() -> RpcException.internal(
                "volume '" + volumeName + "' has a name entry but no record"));
    }

    public Optional<Volume> volumeById(String volumeId) {
        return store.get(KvLayout.volume(volumeId)).map(Namespace::parseVolume);
    }

    // ---------------------------------------------------------------------------------- attributes

    public Stat getattr(OperationContext context, String volumeName, String path) throws RpcException {
        Volume volume = volume(volumeName);
        return resolve(new Transaction(store), volume, context.caller(), path).stat();
    }

    public void access(OperationContext context, String volumeName, String path, int mode) throws RpcException {
        Volume volume = volume(volumeName);
        InodeRecord record = resolve(new Transaction(store), volume, context.caller(), path);
        if ((mode & ~7) != 0) {
            throw RpcException.errno(Errno.EINVAL, "invalid access mode " + mode + " for '" + path + "'");
        }
        Permissions.check(context.caller(), record.stat(), mode & 7, path);
    }

    public Stat setattr(OperationContext context, String volumeName, String path, Stat requested, int toSet)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Caller caller = context.caller();
        InodeRecord record = resolve(transaction, volume, caller, path);
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
        updated = updated.withStat(withBlocks(stat.build()));
        putInode(transaction, volume.getId(), updated);
        transaction.commit(durability);
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

    // ------------------------------------------------------------------------------- create/remove

    public Stat mkdir(OperationContext context, String volumeName, String path, int mode) throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Entry entry = resolveNew(transaction, volume, context.caller(), path);
        InodeRecord parent = entry.parent();
        int gid = context.caller().gid();
        int permissions = mode & FileModes.PERMISSION_MASK;
        if ((parent.mode() & FileModes.S_ISGID) != 0) {
            gid = parent.stat().getGid();
            permissions |= FileModes.S_ISGID;
        }
        long inode = allocateInode(transaction, volume.getId());
        Stat stat = newStat(context, inode, FileModes.S_IFDIR | permissions, 2, gid, volume).build();
        insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, null, parent.inode(), 0), context);
        transaction.commit(durability);
        return stat;
    }

    /** Creates FIFOs, sockets, device nodes (metadata only) and empty regular files. */
    public Stat mknod(OperationContext context, String volumeName, String path, int mode, long rdev)
            throws RpcException {
        int type = FileModes.type(mode) == 0 ? FileModes.S_IFREG : FileModes.type(mode);
        if (!FileModes.isMknodType(type)) {
            throw RpcException.errno(Errno.EINVAL, "mknod cannot create '" + path + "' of type 0"
                    + Integer.toOctalString(type));
        }
        if ((type == FileModes.S_IFCHR || type == FileModes.S_IFBLK) && !context.caller().isRoot()) {
            throw RpcException.errno(Errno.EPERM, "only root may create device node '" + path + "'");
        }
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Entry entry = resolveNew(transaction, volume, context.caller(), path);
        long inode = allocateInode(transaction, volume.getId());
        Stat stat = newStat(context, inode, type | (mode & FileModes.PERMISSION_MASK), 1,
                inheritedGid(context, entry.parent()), volume)
                .setRdev(type == FileModes.S_IFCHR || type == FileModes.S_IFBLK ? rdev : 0)
                .build();
        insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, null, 0, 0), context);
        transaction.commit(durability);
        return stat;
    }

    public void rmdir(OperationContext context, String volumeName, String path) throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Caller caller = context.caller();
        Entry entry = resolveExisting(transaction, volume, caller, path, "rmdir");
        InodeRecord target = entry.record();
        if (!target.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "rmdir: '" + path + "' is not a directory");
        }
        checkRemovable(caller, entry, path);
        if (hasEntries(volume.getId(), target.inode())) {
            throw RpcException.errno(Errno.ENOTEMPTY, "rmdir: directory '" + path + "' is not empty");
        }
        transaction.delete(KvLayout.dentry(volume.getId(), entry.parent().inode(), entry.name()));
        deleteInode(transaction, volume.getId(), target.inode());
        touchDirectory(transaction, volume.getId(), entry.parent().inode(), -1, context);
        transaction.commit(durability);
    }

    /** Removes a name; returns the file when it was the last link (its objects are now garbage). */
    public Optional<DeletedFile> unlink(OperationContext context, String volumeName, String path)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Caller caller = context.caller();
        Entry entry = resolveExisting(transaction, volume, caller, path, "unlink");
        if (entry.record().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "unlink: '" + path + "' is a directory");
        }
        checkRemovable(caller, entry, path);
        transaction.delete(KvLayout.dentry(volume.getId(), entry.parent().inode(), entry.name()));
        Optional<DeletedFile> deleted = dropLink(transaction, volume.getId(), entry.record().inode(), context);
        touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context);
        transaction.commit(durability);
        return deleted;
    }

    /**
     * Opens (and with O_CREAT creates) a file. A regular file gets its layout on the first open: the
     * volume's policy picks {@code width} OSDs from the context's OSD snapshot. O_TRUNC sets the size to
     * 0 under a new truncate epoch; the client then truncates the objects on the OSDs.
     */
    public OpenResult open(OperationContext context, String volumeName, String path, int flags, int mode)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Caller caller = context.caller();
        AccessMode accessMode = switch (flags & 3) {
            case 0 -> AccessMode.ACCESS_MODE_READ;
            case OpenFlag.O_WRONLY_FLAG_VALUE -> AccessMode.ACCESS_MODE_WRITE;
            case OpenFlag.O_RDWR_FLAG_VALUE -> AccessMode.ACCESS_MODE_READ_WRITE;
            default -> throw RpcException.errno(Errno.EINVAL, "invalid open access mode 3 for '" + path + "'");
        };
        boolean create = (flags & OpenFlag.O_CREAT_FLAG_VALUE) != 0;
        boolean exclusive = (flags & OpenFlag.O_EXCL_FLAG_VALUE) != 0;
        boolean truncate = (flags & OpenFlag.O_TRUNC_FLAG_VALUE) != 0;
        List<String> components = PathNames.split(path);
        InodeRecord record;
        boolean created = false;
        boolean changed = false;
        if (components.isEmpty()) {
            record = loadInode(transaction, volume.getId(), ROOT_INODE);
        } else {
            InodeRecord parent = resolveComponents(transaction, volume, caller, components.subList(0,
                    components.size() - 1), path);
            String name = components.get(components.size() - 1);
            if (!parent.isDirectory()) {
                throw RpcException.errno(Errno.ENOTDIR, "not a directory: parent of '" + path + "'");
            }
            Permissions.check(caller, parent.stat(), Permissions.EXECUTE, path);
            Optional<Long> existing = PathNames.isDotOrDotDot(name) ? Optional.of(dotTarget(parent, name))
                    : lookup(transaction, volume.getId(), parent.inode(), name);
            if (existing.isEmpty()) {
                if (!create) {
                    throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
                }
                if (path.endsWith("/")) {
                    throw RpcException.errno(Errno.EISDIR, "cannot create a file named like a directory: '" + path
                            + "'");
                }
                Permissions.check(caller, parent.stat(), Permissions.WRITE | Permissions.EXECUTE, parentPath(path));
                long inode = allocateInode(transaction, volume.getId());
                Stat stat = newStat(context, inode, FileModes.S_IFREG | (mode & FileModes.PERMISSION_MASK), 1,
                        inheritedGid(context, parent), volume).build();
                record = new InodeRecord(stat, null, null, 0, 0);
                putDentry(transaction, volume.getId(), parent.inode(), name, inode);
                touchDirectory(transaction, volume.getId(), parent.inode(), 0, context);
                created = true;
            } else {
                if (create && exclusive) {
                    throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "' (O_CREAT|O_EXCL)");
                }
                record = checkTrailingSlash(loadInode(transaction, volume.getId(), existing.get()), path);
            }
        }
        if (!created) {
            if (record.isDirectory()) {
                if (accessMode != AccessMode.ACCESS_MODE_READ || truncate || create) {
                    throw RpcException.errno(Errno.EISDIR, "cannot open directory '" + path + "' for writing");
                }
            }
            if (record.isSymlink()) {
                throw RpcException.errno(Errno.ELOOP, "'" + path + "' is a symbolic link; clients resolve links");
            }
            int mask = switch (accessMode) {
                case ACCESS_MODE_WRITE -> Permissions.WRITE;
                case ACCESS_MODE_READ_WRITE -> Permissions.READ | Permissions.WRITE;
                default -> Permissions.READ;
            };
            if (truncate) {
                mask |= Permissions.WRITE;
            }
            Permissions.check(caller, record.stat(), mask, path);
            if (accessMode != AccessMode.ACCESS_MODE_WRITE && record.isRegularFile()) {
                Optional<Stat> accessed = accessed(record.stat(), context);
                if (accessed.isPresent()) {
                    record = record.withStat(accessed.get());
                    changed = true;
                }
            }
            if (truncate && record.isRegularFile()) {
                int epoch = record.issuedTruncateEpoch() + 1;
                record = record.withIssuedTruncateEpoch(epoch).withStat(withBlocks(record.stat().toBuilder()
                        .setSizeBytes(0).setTruncateEpoch(epoch).setMtimeNs(context.nowNanos())
                        .setCtimeNs(context.nowNanos()).build()));
                changed = true;
            }
        }
        if (record.isRegularFile() && !record.hasLayout()) {
            record = record.withXlocs(allocateLayout(context, volume, record.inode()));
            changed = true;
        }
        if (created || changed) {
            putInode(transaction, volume.getId(), record);
        }
        transaction.commit(durability);
        return new OpenResult(volume.getId(), record, accessMode, record.isRegularFile());
    }

    // ----------------------------------------------------------------------------- links and rename

    public Stat link(OperationContext context, String volumeName, String existingPath, String linkPath)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        InodeRecord target = resolve(transaction, volume, context.caller(), existingPath);
        if (target.isDirectory()) {
            throw RpcException.errno(Errno.EPERM, "link: '" + existingPath + "' is a directory");
        }
        Entry entry = resolveNew(transaction, volume, context.caller(), linkPath);
        putDentry(transaction, volume.getId(), entry.parent().inode(), entry.name(), target.inode());
        Stat stat = target.stat().toBuilder().setNlink(target.stat().getNlink() + 1)
                .setCtimeNs(context.nowNanos()).build();
        putInode(transaction, volume.getId(), target.withStat(stat));
        touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context);
        transaction.commit(durability);
        return stat;
    }

    public Stat symlink(OperationContext context, String volumeName, String target, String linkPath)
            throws RpcException {
        if (target.isEmpty()) {
            throw RpcException.errno(Errno.ENOENT, "symlink: empty target for '" + linkPath + "'");
        }
        int targetBytes = target.getBytes(StandardCharsets.UTF_8).length;
        if (targetBytes > PathNames.PATH_BYTES_MAX) {
            throw RpcException.errno(Errno.ENAMETOOLONG, "symlink target longer than " + PathNames.PATH_BYTES_MAX
                    + " bytes for '" + linkPath + "'");
        }
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        Entry entry = resolveNew(transaction, volume, context.caller(), linkPath);
        long inode = allocateInode(transaction, volume.getId());
        Stat stat = withBlocks(newStat(context, inode, FileModes.S_IFLNK | 0777, 1,
                inheritedGid(context, entry.parent()), volume).setSizeBytes(targetBytes).build());
        insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, target, 0, 0), context);
        transaction.commit(durability);
        return stat;
    }

    public String readlink(OperationContext context, String volumeName, String path) throws RpcException {
        Volume volume = volume(volumeName);
        InodeRecord record = resolve(new Transaction(store), volume, context.caller(), path);
        if (!record.isSymlink()) {
            throw RpcException.errno(Errno.EINVAL, "readlink: '" + path + "' is not a symbolic link");
        }
        return record.symlinkTarget();
    }

    /**
     * Atomic rename within one volume, as Linux renameat2: replaces a file or an empty directory,
     * RENAME_NOREPLACE fails with EEXIST, RENAME_EXCHANGE swaps. Returns the replaced file when its last
     * link went away.
     */
    public Optional<DeletedFile> rename(OperationContext context, String volumeName, String sourcePath,
            String targetPath, int flags, String targetVolumeName) throws RpcException {
        if (!targetVolumeName.isEmpty() && !targetVolumeName.equals(volumeName)) {
            throw RpcException.errno(Errno.EXDEV, "cannot rename '" + sourcePath + "' from volume '" + volumeName
                    + "' to volume '" + targetVolumeName + "'");
        }
        if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) != 0
                || flags == (RENAME_NOREPLACE | RENAME_EXCHANGE)) {
            throw RpcException.errno(Errno.EINVAL, "invalid rename flags " + flags);
        }
        Volume volume = volume(volumeName);
        String volumeId = volume.getId();
        Transaction transaction = new Transaction(store);
        Caller caller = context.caller();
        Entry source = resolveExisting(transaction, volume, caller, sourcePath, "rename");
        Entry target = resolveEntry(transaction, volume, caller, targetPath, "rename");
        InodeRecord moved = source.record();
        Optional<InodeRecord> replaced = Optional.ofNullable(target.record());
        checkRemovable(caller, source, sourcePath);
        Permissions.check(caller, target.parent().stat(), Permissions.WRITE | Permissions.EXECUTE,
                parentPath(targetPath));
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
            exchange(transaction, volumeId, caller, source, target, context, sourcePath, targetPath);
            transaction.commit(durability);
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
            checkNotUnderItself(transaction, volumeId, moved.inode(), target.parent().inode(), sourcePath, targetPath);
            if (source.parent().inode() != target.parent().inode()) {
                Permissions.check(caller, moved.stat(), Permissions.WRITE, sourcePath);
            }
        } else if (replaced.isPresent() && replaced.get().isDirectory()) {
            throw RpcException.errno(Errno.EISDIR, "rename: non-directory '" + sourcePath
                    + "' cannot replace directory '" + targetPath + "'");
        }
        if (replaced.isPresent() && replaced.get().isDirectory() && hasEntries(volumeId, replaced.get().inode())) {
            throw RpcException.errno(Errno.ENOTEMPTY, "rename: target directory '" + targetPath + "' is not empty");
        }
        Optional<DeletedFile> deleted = Optional.empty();
        if (replaced.isPresent()) {
            if (replaced.get().isDirectory()) {
                deleteInode(transaction, volumeId, replaced.get().inode());
                touchDirectory(transaction, volumeId, target.parent().inode(), -1, context);
            } else {
                deleted = dropLink(transaction, volumeId, replaced.get().inode(), context);
            }
        }
        transaction.delete(KvLayout.dentry(volumeId, source.parent().inode(), source.name()));
        putDentry(transaction, volumeId, target.parent().inode(), target.name(), moved.inode());
        InodeRecord movedNow = loadInode(transaction, volumeId, moved.inode());
        if (moved.isDirectory()) {
            movedNow = movedNow.withParent(target.parent().inode());
            if (source.parent().inode() != target.parent().inode()) {
                touchDirectory(transaction, volumeId, source.parent().inode(), -1, context);
                touchDirectory(transaction, volumeId, target.parent().inode(), +1, context);
            }
        }
        putInode(transaction, volumeId, movedNow.withStat(movedNow.stat().toBuilder()
                .setCtimeNs(context.nowNanos()).build()));
        touchDirectory(transaction, volumeId, source.parent().inode(), 0, context);
        touchDirectory(transaction, volumeId, target.parent().inode(), 0, context);
        transaction.commit(durability);
        return deleted;
    }

    private void exchange(Transaction transaction, String volumeId, Caller caller, Entry source, Entry target,
            OperationContext context, String sourcePath, String targetPath) throws RpcException {
        InodeRecord first = source.record();
        InodeRecord second = target.record();
        boolean sameParent = source.parent().inode() == target.parent().inode();
        if (first.isDirectory()) {
            checkNotUnderItself(transaction, volumeId, first.inode(), target.parent().inode(), sourcePath, targetPath);
            if (!sameParent) {
                Permissions.check(caller, first.stat(), Permissions.WRITE, sourcePath);
            }
        }
        if (second.isDirectory()) {
            checkNotUnderItself(transaction, volumeId, second.inode(), source.parent().inode(), targetPath, sourcePath);
            if (!sameParent) {
                Permissions.check(caller, second.stat(), Permissions.WRITE, targetPath);
            }
        }
        putDentry(transaction, volumeId, source.parent().inode(), source.name(), second.inode());
        putDentry(transaction, volumeId, target.parent().inode(), target.name(), first.inode());
        if (!sameParent) {
            int shift = (first.isDirectory() ? 1 : 0) - (second.isDirectory() ? 1 : 0);
            touchDirectory(transaction, volumeId, source.parent().inode(), -shift, context);
            touchDirectory(transaction, volumeId, target.parent().inode(), shift, context);
        } else {
            touchDirectory(transaction, volumeId, source.parent().inode(), 0, context);
        }
        for (InodeRecord record : List.of(first, second)) {
            InodeRecord current = loadInode(transaction, volumeId, record.inode());
            if (record.isDirectory()) {
                current = current.withParent(record == first ? target.parent().inode() : source.parent().inode());
            }
            putInode(transaction, volumeId, current.withStat(current.stat().toBuilder()
                    .setCtimeNs(context.nowNanos()).build()));
        }
    }

    // ------------------------------------------------------------------------------------ readdir

    public ReaddirResponse readdir(OperationContext context, String volumeName, String path, long offset, int limit,
            boolean namesOnly) throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        InodeRecord directory = resolve(transaction, volume, context.caller(), path);
        if (!directory.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "readdir: '" + path + "' is not a directory");
        }
        Permissions.check(context.caller(), directory.stat(), Permissions.READ, path);
        if (offset == 0) {
            Optional<Stat> accessed = accessed(directory.stat(), context);
            if (accessed.isPresent()) {
                directory = directory.withStat(accessed.get());
                putInode(transaction, volume.getId(), directory);
                transaction.commit(durability);
            }
        }
        int pageSize = limit == 0 ? READDIR_LIMIT_DEFAULT : Math.min(limit, READDIR_LIMIT_MAX);
        ReaddirResponse.Builder response = ReaddirResponse.newBuilder();
        // Offsets: 0 is ".", 1 is "..", 2 + i is the i-th entry in name order.
        for (long index = offset; index < 2 && response.getEntriesCount() < pageSize; index++) {
            InodeRecord record = index == 0 ? directory
                    : loadInode(transaction, volume.getId(), directory.parentInode());
            response.addEntries(entry(index == 0 ? "." : "..", record.stat(), index + 1, namesOnly));
        }
        boolean end = true;
        long skip = Math.max(0, offset - 2);
        long position = Math.max(2, offset);
        try (KvIterator iterator = store.iterator(KeyRange.prefix(
                KvLayout.dentryPrefix(volume.getId(), directory.inode())))) {
            while (iterator.hasNext()) {
                KvEntry dentry = iterator.next();
                if (skip > 0) {
                    skip--;
                    continue;
                }
                if (response.getEntriesCount() >= pageSize) {
                    end = false;
                    break;
                }
                String name = KvLayout.dentryName(volume.getId(), dentry.key());
                Stat stat = namesOnly ? null
                        : loadInode(transaction, volume.getId(), KvLayout.decodeLong(dentry.value())).stat();
                position++;
                response.addEntries(entry(name, stat, position, namesOnly));
            }
        }
        return response.setEndOfDirectory(end).build();
    }

    private static DirectoryEntry entry(String name, Stat stat, long nextOffset, boolean namesOnly) {
        DirectoryEntry.Builder entry = DirectoryEntry.newBuilder().setName(name).setNextOffset(nextOffset);
        if (!namesOnly && stat != null) {
            entry.setStat(stat);
        }
        return entry.build();
    }

    // ------------------------------------------------------------------------------------- xattrs

    public byte[] getxattr(OperationContext context, String volumeName, String path, String name)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        InodeRecord record = resolve(transaction, volume, context.caller(), path);
        if (name.startsWith(XTREEMFS_XATTR_PREFIX)) {
            return LayoutAttributes.value(volume, record, name)
                    .orElseThrow(() -> RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '"
                            + path + "'"));
        }
        if (name.startsWith(USER_XATTR_PREFIX)) {
            Permissions.check(context.caller(), record.stat(), Permissions.READ, path);
        }
        return transaction.get(KvLayout.xattr(volume.getId(), record.inode(), name))
                .orElseThrow(() -> RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "'"));
    }

    public void setxattr(OperationContext context, String volumeName, String path, String name, byte[] value,
            int flags) throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        InodeRecord record = resolve(transaction, volume, context.caller(), path);
        checkWritableXattr(context.caller(), record, path, name);
        if (value.length > XATTR_VALUE_BYTES_MAX) {
            throw RpcException.errno(E2BIG, "value of attribute '" + name + "' has " + value.length
                    + " bytes, more than " + XATTR_VALUE_BYTES_MAX);
        }
        if ((flags & ~(XATTR_CREATE | XATTR_REPLACE)) != 0 || flags == (XATTR_CREATE | XATTR_REPLACE)) {
            throw RpcException.errno(Errno.EINVAL, "invalid setxattr flags " + flags);
        }
        byte[] key = KvLayout.xattr(volume.getId(), record.inode(), name);
        boolean exists = transaction.get(key).isPresent();
        if (exists && (flags & XATTR_CREATE) != 0) {
            throw RpcException.errno(Errno.EEXIST, "attribute '" + name + "' exists on '" + path + "' (XATTR_CREATE)");
        }
        if (!exists && (flags & XATTR_REPLACE) != 0) {
            throw RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "' (XATTR_REPLACE)");
        }
        transaction.put(key, value);
        touchCtime(transaction, volume.getId(), record, context);
        transaction.commit(durability);
    }

    /** The stored attribute names (user.*), sorted; the read-only xtreemfs.* attributes are not listed. */
    public List<String> listxattr(OperationContext context, String volumeName, String path) throws RpcException {
        Volume volume = volume(volumeName);
        InodeRecord record = resolve(new Transaction(store), volume, context.caller(), path);
        List<String> names = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KeyRange.prefix(KvLayout.xattrPrefix(volume.getId(),
                record.inode())))) {
            while (iterator.hasNext()) {
                names.add(KvLayout.xattrName(volume.getId(), iterator.next().key()));
            }
        }
        return names;
    }

    public void removexattr(OperationContext context, String volumeName, String path, String name)
            throws RpcException {
        Volume volume = volume(volumeName);
        Transaction transaction = new Transaction(store);
        InodeRecord record = resolve(transaction, volume, context.caller(), path);
        checkWritableXattr(context.caller(), record, path, name);
        byte[] key = KvLayout.xattr(volume.getId(), record.inode(), name);
        if (transaction.get(key).isEmpty()) {
            throw RpcException.errno(Errno.ENODATA, "no attribute '" + name + "' on '" + path + "'");
        }
        transaction.delete(key);
        touchCtime(transaction, volume.getId(), record, context);
        transaction.commit(durability);
    }

    private static void checkWritableXattr(Caller caller, InodeRecord record, String path, String name)
            throws RpcException {
        if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > PathNames.NAME_BYTES_MAX) {
            throw RpcException.errno(Errno.ERANGE, "invalid attribute name '" + PathNames.abbreviate(name)
                    + "': empty or longer than " + PathNames.NAME_BYTES_MAX + " bytes");
        }
        if (name.startsWith(XTREEMFS_XATTR_PREFIX)) {
            throw RpcException.errno(Errno.EPERM, "attribute '" + name + "' is read-only");
        }
        if (!name.startsWith(USER_XATTR_PREFIX) || name.length() == USER_XATTR_PREFIX.length()) {
            throw RpcException.errno(Errno.ENOTSUP, "attribute '" + name
                    + "' is not in a supported namespace (user.*)");
        }
        if (!record.isRegularFile() && !record.isDirectory()) {
            throw RpcException.errno(Errno.EPERM, "user.* attributes are only allowed on files and directories: '"
                    + path + "'");
        }
        Permissions.check(caller, record.stat(), Permissions.WRITE, path);
    }

    // ---------------------------------------------------------------------------------- statvfs

    /** Space of the volume: the sum over the online OSDs, capped by the reservation's capacity. */
    public StatvfsResponse statvfs(OperationContext context, String volumeName) throws RpcException {
        Volume volume = volume(volumeName);
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
        long usedInodes = store.get(KvLayout.inodeCounter(volume.getId())).map(KvLayout::decodeLong).orElse(2L) - 1;
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

    // ------------------------------------------------------------------------- capability-based

    /** The inode a capability names; ENOENT when the file has been deleted since. */
    public InodeRecord inodeOf(String volumeId, long inode) throws RpcException {
        return loadInodeIfPresent(new Transaction(store), volumeId, inode).orElseThrow(() -> RpcException.errno(
                Errno.ENOENT, "file " + FileIds.fileId(volumeId, inode) + " no longer exists"));
    }

    /** Starts a truncate of an open file: a new truncate epoch, which the new capability carries. */
    public int beginTruncate(String volumeId, long inode) throws RpcException {
        Transaction transaction = new Transaction(store);
        InodeRecord record = inodeOf(volumeId, inode);
        int epoch = record.issuedTruncateEpoch() + 1;
        putInode(transaction, volumeId, record.withIssuedTruncateEpoch(epoch));
        transaction.commit(durability);
        return epoch;
    }

    /**
     * Applies a size a client reports. An epoch older than the newest issued truncate epoch is ignored
     * (a truncate happened or is under way); an epoch newer than the size's epoch sets the size
     * outright (it completes that truncate); the size's own epoch only grows the size. Returns whether
     * the size changed. Every report that is not stale, and every close, sets mtime and ctime.
     */
    public boolean updateFileSize(OperationContext context, String volumeId, long inode, long sizeBytes,
            int truncateEpoch, boolean closeAfterWrite) throws RpcException {
        Transaction transaction = new Transaction(store);
        InodeRecord record = inodeOf(volumeId, inode);
        Stat stat = record.stat();
        if (Integer.compareUnsigned(truncateEpoch, record.issuedTruncateEpoch()) > 0) {
            throw RpcException.invalidArguments("truncate epoch " + Integer.toUnsignedString(truncateEpoch)
                    + " of file " + FileIds.fileId(volumeId, inode) + " was never issued (latest "
                    + record.issuedTruncateEpoch() + ")");
        }
        boolean stale = Integer.compareUnsigned(truncateEpoch, record.issuedTruncateEpoch()) < 0;
        boolean changes;
        if (stale) {
            changes = false;
        } else if (Integer.compareUnsigned(truncateEpoch, stat.getTruncateEpoch()) > 0) {
            changes = true;
        } else {
            changes = Long.compareUnsigned(sizeBytes, stat.getSizeBytes()) > 0;
        }
        // Clients report only after writing (on fsync, flush and close), so a report that is not stale
        // is a write: it stamps mtime and ctime even when the size stays (overwriting in place).
        if (stale && !closeAfterWrite) {
            return false;
        }
        Stat.Builder updated = stat.toBuilder().setMtimeNs(context.nowNanos()).setCtimeNs(context.nowNanos());
        if (changes) {
            updated.setSizeBytes(sizeBytes).setTruncateEpoch(truncateEpoch);
        }
        putInode(transaction, volumeId, record.withStat(withBlocks(updated.build())));
        transaction.commit(durability);
        return changes;
    }

    /** The record of a path for layout queries (xtfsutil). */
    public InodeRecord lookupRecord(OperationContext context, String volumeName, String path) throws RpcException {
        return resolve(new Transaction(store), volume(volumeName), context.caller(), path);
    }

    // ------------------------------------------------------------------------- MRC-wide values

    public Optional<String> mrcValue(String name) {
        return store.get(KvLayout.mrcValue(name)).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    public void putMrcValue(String name, String value) {
        Transaction transaction = new Transaction(store);
        transaction.put(KvLayout.mrcValue(name), value.getBytes(StandardCharsets.UTF_8));
        transaction.commit(Durability.SYNC);
    }

    // --------------------------------------------------------------------------------- helpers

    /** The parent directory of a path's last component, with that name, and the entry if it exists. */
    private record Entry(InodeRecord parent, String name, InodeRecord record) {}

    private InodeRecord resolve(Transaction transaction, Volume volume, Caller caller, String path)
            throws RpcException {
        return checkTrailingSlash(resolveComponents(transaction, volume, caller, PathNames.split(path), path), path);
    }

    /** As in Linux, "name/" must name a directory (ENOTDIR otherwise). */
    private static InodeRecord checkTrailingSlash(InodeRecord record, String path) throws RpcException {
        if (path.endsWith("/") && !record.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "not a directory: '" + path + "'");
        }
        return record;
    }

    /** Walks the components from the root, needing search permission on every directory passed. */
    private InodeRecord resolveComponents(Transaction transaction, Volume volume, Caller caller,
            List<String> components, String path) throws RpcException {
        InodeRecord current = loadInode(transaction, volume.getId(), ROOT_INODE);
        for (String component : components) {
            if (!current.isDirectory()) {
                throw RpcException.errno(Errno.ENOTDIR, "not a directory: a component of '" + path + "'");
            }
            Permissions.check(caller, current.stat(), Permissions.EXECUTE, path);
            long next;
            if (PathNames.isDotOrDotDot(component)) {
                next = dotTarget(current, component);
            } else {
                Optional<Long> child = lookup(transaction, volume.getId(), current.inode(), component);
                if (child.isEmpty()) {
                    throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
                }
                next = child.get();
            }
            current = loadInode(transaction, volume.getId(), next);
        }
        return current;
    }

    private static long dotTarget(InodeRecord directory, String name) {
        return name.equals(".") ? directory.inode() : directory.parentInode();
    }

    /** Resolves the parent of a path and looks up its last name (which may be absent). */
    private Entry resolveEntry(Transaction transaction, Volume volume, Caller caller, String path, String operation)
            throws RpcException {
        List<String> components = PathNames.split(path);
        if (components.isEmpty()) {
            throw RpcException.errno(EBUSY, operation + ": '" + path + "' is the volume's root directory");
        }
        String name = components.get(components.size() - 1);
        InodeRecord parent = resolveComponents(transaction, volume, caller, components.subList(0,
                components.size() - 1), path);
        if (!parent.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "not a directory: parent of '" + path + "'");
        }
        if (PathNames.isDotOrDotDot(name)) {
            throw RpcException.errno(Errno.EINVAL, operation + ": '" + path + "' ends in '" + name + "'");
        }
        Permissions.check(caller, parent.stat(), Permissions.EXECUTE, path);
        Optional<Long> child = lookup(transaction, volume.getId(), parent.inode(), name);
        return new Entry(parent, name, child.isEmpty() ? null : loadInode(transaction, volume.getId(), child.get()));
    }

    private Entry resolveExisting(Transaction transaction, Volume volume, Caller caller, String path,
            String operation) throws RpcException {
        Entry entry = resolveEntry(transaction, volume, caller, path, operation);
        if (entry.record() == null) {
            throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
        }
        checkTrailingSlash(entry.record(), path);
        return entry;
    }

    /** A name to create: the parent must be writable and searchable, the name free (EEXIST). */
    private Entry resolveNew(Transaction transaction, Volume volume, Caller caller, String path) throws RpcException {
        List<String> components = PathNames.split(path);
        if (components.isEmpty() || PathNames.isDotOrDotDot(components.get(components.size() - 1))) {
            throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "'");
        }
        Entry entry = resolveEntry(transaction, volume, caller, path, "create");
        if (entry.record() != null) {
            throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "'");
        }
        Permissions.check(caller, entry.parent().stat(), Permissions.WRITE | Permissions.EXECUTE, parentPath(path));
        return entry;
    }

    private static void checkRemovable(Caller caller, Entry entry, String path) throws RpcException {
        Permissions.check(caller, entry.parent().stat(), Permissions.WRITE | Permissions.EXECUTE, parentPath(path));
        Permissions.checkSticky(caller, entry.parent().stat(), entry.record().stat(), path);
    }

    /** EINVAL when {@code directoryInode} is {@code newParent} or one of its ancestors. */
    private void checkNotUnderItself(Transaction transaction, String volumeId, long directoryInode, long newParent,
            String sourcePath, String targetPath) throws RpcException {
        long current = newParent;
        for (int depth = 0; depth <= PathNames.PATH_BYTES_MAX; depth++) {
            if (current == directoryInode) {
                throw RpcException.errno(Errno.EINVAL, "rename: cannot move directory '" + sourcePath
                        + "' under itself ('" + targetPath + "')");
            }
            if (current == ROOT_INODE) {
                return;
            }
            current = loadInode(transaction, volumeId, current).parentInode();
        }
        throw RpcException.internal("directory parent chain longer than " + PathNames.PATH_BYTES_MAX);
    }

    private static String parentPath(String path) {
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int slash = trimmed.lastIndexOf('/');
        return slash <= 0 ? "/" : trimmed.substring(0, slash);
    }

    private boolean hasEntries(String volumeId, long directoryInode) {
        return !store.scan(KeyRange.prefix(KvLayout.dentryPrefix(volumeId, directoryInode)), 1).isEmpty();
    }

    private Optional<Long> lookup(Transaction transaction, String volumeId, long parent, String name) {
        return transaction.get(KvLayout.dentry(volumeId, parent, name)).map(KvLayout::decodeLong);
    }

    /** Adds a new inode under the entry's name; a new subdirectory raises the parent's nlink. */
    private void insertEntry(Transaction transaction, String volumeId, Entry entry, InodeRecord record,
            OperationContext context) throws RpcException {
        putInode(transaction, volumeId, record);
        putDentry(transaction, volumeId, entry.parent().inode(), entry.name(), record.inode());
        touchDirectory(transaction, volumeId, entry.parent().inode(), record.isDirectory() ? 1 : 0, context);
    }

    private static void putDentry(Transaction transaction, String volumeId, long parent, String name, long inode) {
        transaction.put(KvLayout.dentry(volumeId, parent, name), KvLayout.encodeLong(inode));
    }

    private InodeRecord loadInode(Transaction transaction, String volumeId, long inode) throws RpcException {
        return loadInodeIfPresent(transaction, volumeId, inode).orElseThrow(() -> RpcException.internal(
                "namespace of volume " + volumeId + " references missing inode " + inode));
    }

    private static Optional<InodeRecord> loadInodeIfPresent(Transaction transaction, String volumeId, long inode) {
        return transaction.get(KvLayout.inode(volumeId, inode)).map(InodeRecord::decode);
    }

    private static void putInode(Transaction transaction, String volumeId, InodeRecord record) {
        transaction.put(KvLayout.inode(volumeId, record.inode()), record.encode());
    }

    private void deleteInode(Transaction transaction, String volumeId, long inode) {
        transaction.delete(KvLayout.inode(volumeId, inode));
        try (KvIterator iterator = store.iterator(KeyRange.prefix(KvLayout.xattrPrefix(volumeId, inode)))) {
            while (iterator.hasNext()) {
                transaction.delete(iterator.next().key());
            }
        }
    }

    /** Decrements a non-directory's link count; deletes it at zero and returns it if it had objects. */
    private Optional<DeletedFile> dropLink(Transaction transaction, String volumeId, long inode,
            OperationContext context) throws RpcException {
        InodeRecord record = loadInode(transaction, volumeId, inode);
        int links = record.stat().getNlink() - 1;
        if (links > 0) {
            putInode(transaction, volumeId, record.withStat(record.stat().toBuilder().setNlink(links)
                    .setCtimeNs(context.nowNanos()).build()));
            return Optional.empty();
        }
        deleteInode(transaction, volumeId, inode);
        if (!record.isRegularFile() || !record.hasLayout()) {
            return Optional.empty();
        }
        return Optional.of(new DeletedFile(volumeId, inode, record.xlocs(), record.issuedTruncateEpoch()));
    }

    private long allocateInode(Transaction transaction, String volumeId) throws RpcException {
        byte[] key = KvLayout.inodeCounter(volumeId);
        long next = transaction.get(key).map(KvLayout::decodeLong).orElseThrow(() -> RpcException.internal(
                "volume " + volumeId + " has no inode counter"));
        transaction.put(key, KvLayout.encodeLong(next + 1));
        return next;
    }

    /** A directory's entries changed: mtime and ctime now, nlink adjusted by {@code linkDelta}. */
    private void touchDirectory(Transaction transaction, String volumeId, long directoryInode, int linkDelta,
            OperationContext context) throws RpcException {
        InodeRecord directory = loadInode(transaction, volumeId, directoryInode);
        putInode(transaction, volumeId, directory.withStat(directory.stat().toBuilder()
                .setNlink(directory.stat().getNlink() + linkDelta)
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .build()));
    }

    /**
     * The inode's Stat with atime = now when the atime policy asks for an update on this access (an open
     * for reading, a listing from offset 0); empty when nothing is to be written. ctime stays.
     */
    private Optional<Stat> accessed(Stat stat, OperationContext context) {
        if (!atimePolicy.updates(stat.getAtimeNs(), stat.getMtimeNs(), stat.getCtimeNs(), context.nowNanos())) {
            return Optional.empty();
        }
        return Optional.of(stat.toBuilder().setAtimeNs(context.nowNanos()).build());
    }

    private void touchCtime(Transaction transaction, String volumeId, InodeRecord record, OperationContext context) {
        putInode(transaction, volumeId, record.withStat(record.stat().toBuilder().setCtimeNs(context.nowNanos())
                .build()));
    }

    private static Stat.Builder newStat(OperationContext context, long inode, int mode, int nlink, int gid,
            Volume volume) {
        return Stat.newBuilder()
                .setInode(inode)
                .setMode(mode)
                .setNlink(nlink)
                .setUid(context.caller().uid())
                .setGid(gid)
                .setAtimeNs(context.nowNanos())
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .setBlksize(volume.getDefaultStripingPolicy().getObjectSizeBytes());
    }

    /** New entries take the directory's group when it has setgid (BSD semantics), else the caller's. */
    private static int inheritedGid(OperationContext context, InodeRecord parent) {
        return (parent.mode() & FileModes.S_ISGID) != 0 ? parent.stat().getGid() : context.caller().gid();
    }

    private static Stat withBlocks(Stat stat) {
        return stat.toBuilder().setBlocks((stat.getSizeBytes() + 511) / 512).build();
    }

    private XLocSet allocateLayout(OperationContext context, Volume volume, long inode) throws RpcException {
        OsdSelectionPolicy policy = policies.find(volume.getOsdSelectionPolicy()).orElseThrow(() ->
                RpcException.internal("volume '" + volume.getName() + "' names unknown OSD selection policy '"
                        + volume.getOsdSelectionPolicy() + "'"));
        int width = volume.getDefaultStripingPolicy().getWidth();
        Optional<List<String>> reserved = ledger.stripeOsds(volume.getId());
        if (reserved.isPresent()) {
            return XLocSet.newBuilder().setVersion(1).addReplicas(Replica.newBuilder()
                    .addAllOsdUuids(reserved.get()).setStripingPolicy(volume.getDefaultStripingPolicy())).build();
        }
        try {
            // A volume without reservation gets best-effort OSDs only: typed OSDs carry reservations.
            List<OsdCandidate> bestEffort = context.osds().stream().filter(OsdCandidate::servesBestEffort).toList();
            List<String> osds = policy.select(bestEffort, width, inode);
            return XLocSet.newBuilder()
                    .setVersion(1)
                    .addReplicas(Replica.newBuilder().addAllOsdUuids(osds)
                            .setStripingPolicy(volume.getDefaultStripingPolicy()))
                    .build();
        } catch (NotEnoughOsdsException e) {
            throw RpcException.errno(Errno.ENOSPC, "cannot place a file of volume '" + volume.getName() + "': "
                    + e.getMessage());
        }
    }

    private static void write(Transaction transaction, byte[] key, Optional<byte[]> value) {
        if (value.isPresent()) {
            transaction.put(key, value.get());
        } else {
            transaction.delete(key);
        }
    }

    private static boolean has(int toSet, SetattrField field) {
        return (toSet & field.getNumber()) != 0;
    }

    private static Volume parseVolume(byte[] bytes) {
        try {
            return Volume.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt volume record: " + e.getMessage(), e);
        }
    }
}
