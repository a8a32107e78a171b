package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.PathNames;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.mrc.placement.ChainPlacement;
import org.xtreemfs.mrc.placement.NotEnoughOsdsException;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.placement.OsdSelectionPolicy;

/**
 * MRC_OPEN: opens or creates a file. Prepare fetches the online OSDs (cached) in case the file needs a
 * layout; apply creates/truncates and places it; the answer carries the XLoc and a signed XCap (issued in
 * the answer, not in apply) whose truncate epoch is the file's current one and which carries the volume's
 * reservation share as the ledger holds it now. Directories and special files
 * get a Stat and no credentials. An open that creates the file also answers with its directory's new Stat
 * ({@code directory_stat}), which the mount keeps for the kernel's getattr of the directory after every create.
 */
public final class OpenOp extends MetadataOp<OpenRequest, OpenResult> {
    public OpenOp(OpServices services) {
        super(services, "MRC_OPEN", OpenRequest.parser(), ResultCodec.OPEN);
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, OpenRequest request) {
        return withOsds(context);
    }

    @Override
    protected OpenResult apply(OperationContext context, OpenRequest request) throws RpcException {
        try {
            return open(services.namespace(), services.ledger(), services.policies(), context,
                    request.getVolumeName(), request.getPath(), request.getFlags(), request.getMode());
        } catch (RpcException e) {
            if (e.posixErrno() == Errno.ENOSPC) {
                services.osds().placementFailed(); // the prepared list was too short: the next open asks the DIR
            }
            throw e;
        }
    }

    @Override
    protected MessageLite answer(RpcCall call, OpenResult opened) {
        OpenResponse.Builder response = OpenResponse.newBuilder().setStat(opened.record().stat());
        opened.directory().ifPresent(response::setDirectoryStat);
        if (opened.credentialsNeeded()) {
            XCap capability = services.capabilities().issue(opened.volumeId(), opened.record().inode(),
                    opened.accessMode(), opened.record().issuedTruncateEpoch(), call.remoteAddress(), opened.share());
            response.setCredentials(services.capabilities().credentials(capability, opened.record().xlocs()));
        }
        return response.build();
    }

    /**
     * Opens (and with O_CREAT creates) a file. A regular file gets its layout on the first open: a reserved
     * volume's files go to exactly its admitted OSDs ({@code ledger}), others to the best-effort OSDs of the
     * context's snapshot picked by the volume's policy. O_TRUNC sets the size to 0 under a new truncate
     * epoch; the client then truncates the objects on the OSDs. At most one batch (none when nothing
     * changes, e.g. a repeated open under relatime).
     */
    public static OpenResult open(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
            OperationContext context, String volumeName, String path, int flags, int mode) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
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
        Optional<Stat> directory = Optional.empty();
        boolean created = false;
        boolean changed = false;
        if (components.isEmpty()) {
            record = namespace.loadInode(transaction, volume.getId(), Namespace.ROOT_INODE);
        } else {
            InodeRecord parent = namespace.resolveComponents(transaction, volume, caller, components.subList(0,
                    components.size() - 1), path);
            String name = components.get(components.size() - 1);
            if (!parent.isDirectory()) {
                throw RpcException.errno(Errno.ENOTDIR, "not a directory: parent of '" + path + "'");
            }
            Permissions.check(caller, parent.stat(), Permissions.EXECUTE, path);
            Optional<Long> existing = PathNames.isDotOrDotDot(name) ? Optional.of(Namespace.dotTarget(parent, name))
                    : create ? namespace.lookupExpectedAbsent(transaction, volume.getId(), parent.inode(), name)
                    : namespace.lookup(transaction, volume.getId(), parent.inode(), name);
            if (existing.isEmpty()) {
                if (!create) {
                    throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
                }
                if (path.endsWith("/")) {
                    throw RpcException.errno(Errno.EISDIR, "cannot create a file named like a directory: '" + path
                            + "'");
                }
                Permissions.check(caller, parent.stat(), Permissions.WRITE | Permissions.EXECUTE,
                        Namespace.parentPath(path));
                long inode = namespace.allocateInode(transaction, volume.getId());
                Stat stat = Namespace.newStat(context, inode, FileModes.S_IFREG | (mode & FileModes.PERMISSION_MASK),
                        1, Namespace.inheritedGid(context, parent), volume).build();
                record = new InodeRecord(stat, null, null, 0, 0);
                namespace.putDentry(transaction, volume.getId(), parent.inode(), name, inode);
                directory = Optional.of(namespace.touchDirectory(transaction, volume.getId(), parent.inode(), 0,
                        context).stat());
                created = true;
            } else {
                if (create && exclusive) {
                    throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "' (O_CREAT|O_EXCL)");
                }
                record = Namespace.checkTrailingSlash(namespace.loadInode(transaction, volume.getId(),
                        existing.get()), path);
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
                Optional<Stat> accessed = namespace.accessed(record.stat(), context);
                if (accessed.isPresent()) {
                    record = record.withStat(accessed.get());
                    changed = true;
                }
            }
            if (truncate && record.isRegularFile()) {
                int epoch = record.issuedTruncateEpoch() + 1;
                record = record.withIssuedTruncateEpoch(epoch).withStat(Namespace.withBlocks(record.stat().toBuilder()
                        .setSizeBytes(0).setTruncateEpoch(epoch).setMtimeNs(context.nowNanos())
                        .setCtimeNs(context.nowNanos()).build()));
                changed = true;
            }
        }
        if (record.isRegularFile() && !record.hasLayout()) {
            record = record.withXlocs(allocateLayout(ledger, policies, context, volume, record.inode()));
            changed = true;
        }
        if (created || changed) {
            namespace.putInode(transaction, volume.getId(), record);
        }
        transaction.commit();
        return new OpenResult(volume.getId(), record, accessMode, record.isRegularFile(), ledger.share(volume.getId()),
                directory);
    }

    /**
     * The layout of a new file: a reserved volume stripes over exactly its admitted OSDs (one stripe per replica);
     * a volume without reservation over {@link OsdSelectionPolicies#bestEffortCandidates} (best-effort OSDs only,
     * unless mrc.placement.bestEffortOnTypedOsds), picked by its policy, with its replicas on distinct OSDs and
     * each chain on distinct hosts where there are several ({@link ChainPlacement}). XLoc version 1, carrying the
     * volume's read routing so that clients learn it with the file's credentials.
     */
    private static XLocSet allocateLayout(ReservationLedger ledger, OsdSelectionPolicies policies,
            OperationContext context, Volume volume, long inode) throws RpcException {
        OsdSelectionPolicy policy = policies.find(volume.getOsdSelectionPolicy()).orElseThrow(() ->
                RpcException.internal("volume '" + volume.getName() + "' names unknown OSD selection policy '"
                        + volume.getOsdSelectionPolicy() + "'"));
        int width = volume.getDefaultStripingPolicy().getWidth();
        int replicas = ReplicationRules.replicas(volume.getDefaultReplicationPolicy());
        Optional<List<List<String>>> reserved = ledger.replicaOsds(volume.getId());
        List<List<String>> stripes;
        if (reserved.isPresent()) {
            stripes = reserved.get();
        } else {
            try {
                stripes = ChainPlacement.select(policy, policies.bestEffortCandidates(context.osds()), width, replicas,
                        inode);
            } catch (NotEnoughOsdsException e) {
                throw RpcException.errno(Errno.ENOSPC, "cannot place a file of volume '" + volume.getName() + "': "
                        + e.getMessage());
            }
        }
        XLocSet.Builder xlocs = XLocSet.newBuilder().setVersion(1)
                .setReadRouting(ReplicationRules.readRouting(volume.getDefaultReplicationPolicy()));
        for (List<String> stripe : stripes) {
            xlocs.addReplicas(Replica.newBuilder().addAllOsdUuids(stripe)
                    .setStripingPolicy(volume.getDefaultStripingPolicy()));
        }
        return xlocs.build();
    }
}
