package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaFailedRequest;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/**
 * MRC_REPLICA_FAILED: the one place of the chain re-formation rule (servers/mrc README, "Chain re-formation").
 * A caller holding any valid XCap of a replicated file (checked in prepare) reports that a member of the file's
 * chain did not answer; the MRC removes that member's replica from the XLoc, as a new XLoc version in the file's
 * inode record (one batch), when all of these hold:
 * <ul>
 * <li>the caller's XLoc version is the file's current one (a report against an older XLoc was already handled
 * or is moot: the current XLoc is answered and the caller retries with it);</li>
 * <li>the current XLoc names the OSD and keeps at least one replica without it that is not being filled (a
 * filling replica left last moves before the new tail, as for every removal);</li>
 * <li>the DIR, asked fresh in prepare, does not show the OSD AVAILABLE: its last heartbeat is older than the
 * DIR's {@code dir.heartbeat.timeoutMs}, or it said goodbye. One client's failed call alone removes nothing:
 * that could be a partition between that client and the OSD, and the DIR is the one authority on liveness.</li>
 * </ul>
 * The answer is the file's current XLoc in every case (the re-formed one, or the unchanged one while the DIR
 * still shows the OSD alive); callers retry their update with it. Removing the head makes the next member the
 * head, removing the tail makes its predecessor the tail (which from then on writes synced: the OSD's role comes
 * from the XLoc each request carries). Repeats are harmless: the second report names an older version. The
 * replica row goes as a whole (every OSD of that replica, for all stripe positions), since an XLoc's replicas
 * have equal widths; a replacement is filled later by the re-replication path (issue 12, "a replacement replica
 * is filled in the background"), which adds a replica as a further version.
 */
public final class ReplicaFailedOp extends MetadataOp<ReplicaFailedRequest, XLocSet> {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFailedOp.class);

    public ReplicaFailedOp(OpServices services) {
        super(services, "MRC_REPLICA_FAILED", ReplicaFailedRequest.parser());
    }

    @Override
    protected CompletableFuture<OperationContext> prepare(OperationContext context, ReplicaFailedRequest request) {
        return withVerifiedCapability(context, request.getXcap(), false).thenCompose(verified ->
                request.getFailedOsdUuid().isEmpty() ? CompletableFuture.completedFuture(verified)
                        : withOsdReports(verified));
    }

    @Override
    protected boolean readsOnly(ReplicaFailedRequest request) {
        return request.getFailedOsdUuid().isEmpty();
    }

    @Override
    protected XLocSet apply(OperationContext context, ReplicaFailedRequest request) throws RpcException {
        FileIds.ParsedFileId file = FileIds.parse(request.getXcap().getFileId());
        Optional<OsdReport> report = context.osdReports().stream()
                .filter(osd -> osd.uuid().equals(request.getFailedOsdUuid())).findFirst();
        // An OSD the DIR does not know at all is not alive either.
        boolean alive = report.map(OsdReport::available).orElse(false);
        return replicaFailed(services.namespace(), file.volumeId(), file.inode(), request.getXlocVersion(),
                request.getFailedOsdUuid(), alive);
    }

    @Override
    protected MessageLite answer(RpcCall call, XLocSet xlocs) {
        return xlocs;
    }

    /**
     * The rule (see the class comment): returns the file's XLoc after the report, re-formed without
     * {@code failedOsdUuid}'s replica if it applied. {@code failedOsdAlive}: whether the DIR shows it AVAILABLE.
     */
    public static XLocSet replicaFailed(Namespace namespace, String volumeId, long inode, int reportedVersion,
            String failedOsdUuid, boolean failedOsdAlive) throws RpcException {
        Transaction transaction = namespace.begin();
        InodeRecord record = namespace.inodeOf(transaction, volumeId, inode);
        if (!record.hasLayout()) {
            throw RpcException.errno(Errno.EINVAL, "file " + FileIds.fileId(volumeId, inode) + " has no XLoc yet");
        }
        XLocSet current = record.xlocs();
        if (failedOsdUuid.isEmpty() || reportedVersion != current.getVersion() || failedOsdAlive) {
            return current;
        }
        int replica = replicaOf(current, failedOsdUuid);
        if (replica < 0 || current.getReplicasCount() == 1) {
            return current;
        }
        // Not when only replicas still being filled would be left (they lack the file's older data); a filling
        // replica left last moves before the new tail (ReplicaChanges.withoutReplica, the rule of every removal).
        Optional<XLocSet.Builder> without = ReplicaChanges.withoutReplica(current, replica);
        if (without.isEmpty()) {
            return current;
        }
        XLocSet reformed = without.get().setVersion(current.getVersion() + 1).build();
        namespace.putInode(transaction, volumeId, record.withXlocs(reformed));
        transaction.commit();
        LOG.info("file {}: removed OSD {} (replica {} of {}) from its chain, the DIR shows it dead; XLoc version {} -> {}",
                FileIds.fileId(volumeId, inode), failedOsdUuid, replica + 1, current.getReplicasCount(),
                current.getVersion(), reformed.getVersion());
        return reformed;
    }

    private static int replicaOf(XLocSet xlocs, String osdUuid) {
        for (int replica = 0; replica < xlocs.getReplicasCount(); replica++) {
            if (xlocs.getReplicas(replica).getOsdUuidsList().contains(osdUuid)) {
                return replica;
            }
        }
        return -1;
    }
}
