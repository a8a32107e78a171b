package org.xtreemfs.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.AddReplicaRequest;
import org.xtreemfs.interfaces.mrc.RemoveReplicaRequest;
import org.xtreemfs.interfaces.mrc.ReplicaChangeResponse;
import org.xtreemfs.interfaces.mrc.ReplicaFilledRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.FillReplicaRequest;
import org.xtreemfs.interfaces.osd.FillReplicaResponse;

/**
 * Changes the replicas of one file of a volume (`xtfsutil --set-replication N PATH`): raising the count adds one
 * replica at a time (MRC_ADD_REPLICA: a filling replica before the tail, new XLoc version), fills it on each of its
 * OSDs (OSD_FILL_REPLICA: copied from a live replica in the background at a bounded rate, while writes go on) and
 * marks it filled (MRC_REPLICA_FILLED); lowering it removes replicas (MRC_REMOVE_REPLICA) and deletes their objects
 * (OSD_UNLINK with the removed replica's credentials). Which go: a filling replica first, then the filled member
 * just before the tail, and the tail itself only to go down to one copy; the head (which holds the file's locks)
 * stays. A replica left filling by an interrupted run is filled and marked before anything else.
 */
public final class FileReplicas {
    /** What one change did, for the tool to print. */
    public record Outcome(int replicasBefore, int replicasAfter, long bytesCopied, long fillMs, XLocSet xlocs) {}

    private final Volume volume;

    public FileReplicas(Volume volume) {
        this.volume = volume;
    }

    /**
     * Brings the file to {@code replicas} copies. {@code fillBytesPerSecond} bounds each OSD's fill (0: the OSDs'
     * osd.replication.fillBytesPerSecond); {@code fillTimeoutMs} bounds one OSD's fill.
     */
    public Outcome setReplication(String path, int replicas, long fillBytesPerSecond, long fillTimeoutMs)
            throws XtreemFSException {
        try {
            path = VolumePath.normalize(path);
        } catch (IllegalArgumentException e) {
            throw new XtreemFSException(Errno.EINVAL, "set the replication of '" + path + "': " + e.getMessage());
        }
        XLocSet xlocs = volume.fileLayout(path).getXlocs();
        if (xlocs.getReplicasCount() == 0) {
            throw new XtreemFSException(Errno.EINVAL, "set the replication of " + volume.describe(path) + ": it was"
                    + " never opened, so it has no replicas yet; its volume's policy applies when it is");
        }
        int before = xlocs.getReplicasCount();
        long copied = 0;
        long fillMs = 0;
        var filling = ReplicaChain.of(xlocs).fillingReplica();
        if (filling.isPresent() && replicas >= before) {
            // Left by an interrupted run: finish it (its objects copied already are not copied again).
            FillReplicaResponse[] done = fill(path, credentialsOf(path), xlocs.getReplicas(filling.get()),
                    fillBytesPerSecond, fillTimeoutMs);
            xlocs = filled(path, xlocs.getReplicas(filling.get())).getCredentials().getXlocs();
            copied += bytes(done);
            fillMs += millis(done);
        }
        while (xlocs.getReplicasCount() < replicas) {
            ReplicaChangeResponse added = addReplica(path);
            Replica replica = fillingReplicaOf(added.getCredentials().getXlocs());
            FillReplicaResponse[] done = fill(path, added.getCredentials(), replica, fillBytesPerSecond,
                    fillTimeoutMs);
            copied += bytes(done);
            fillMs += millis(done);
            xlocs = filled(path, replica).getCredentials().getXlocs();
        }
        while (xlocs.getReplicasCount() > replicas) {
            xlocs = removeReplica(path, xlocs.getReplicas(removalIndex(xlocs))).getCredentials().getXlocs();
        }
        return new Outcome(before, xlocs.getReplicasCount(), copied, fillMs, xlocs);
    }

    /**
     * MRC_ADD_REPLICA: a filling replica joins the file's chain before the tail (new XLoc version); its credentials
     * are what {@link #fill} needs. Path normalized.
     */
    public ReplicaChangeResponse addReplica(String path) throws XtreemFSException {
        return volume.mrcCall("add a replica to " + volume.describe(path), false,
                (mrc, address) -> mrc.addReplica(address, volume.client().credentials(), AddReplicaRequest
                        .newBuilder().setVolumeName(volume.name()).setPath(path).build()));
    }

    /** The replica an XLoc marks as filling. */
    public static Replica fillingReplicaOf(XLocSet xlocs) {
        return xlocs.getReplicas(ReplicaChain.of(xlocs).fillingReplica().orElseThrow(() ->
                new IllegalArgumentException("XLoc version " + xlocs.getVersion() + " marks no replica filling")));
    }

    /**
     * MRC_REMOVE_REPLICA of the replica, then OSD_UNLINK at its OSDs with the removed replica's credentials, so they
     * delete their copy. Path normalized.
     */
    public ReplicaChangeResponse removeReplica(String path, Replica doomed) throws XtreemFSException {
        ReplicaChangeResponse removed = volume.mrcCall("remove the replica on " + doomed.getOsdUuidsList()
                + " of " + volume.describe(path), false, (mrc, address) -> mrc.removeReplica(address,
                        volume.client().credentials(), RemoveReplicaRequest.newBuilder()
                                .setVolumeName(volume.name()).setPath(path)
                                .addAllOsdUuids(doomed.getOsdUuidsList()).build()));
        deleteObjects(path, removed.getRemoved(), doomed);
        return removed;
    }

    /** A filling replica, else the member before the tail, else (two left) the tail. */
    static int removalIndex(XLocSet xlocs) {
        var filling = ReplicaChain.of(xlocs).fillingReplica();
        if (filling.isPresent()) {
            return filling.get();
        }
        return xlocs.getReplicasCount() > 2 ? xlocs.getReplicasCount() - 2 : xlocs.getReplicasCount() - 1;
    }

    /**
     * OSD_FILL_REPLICA on every OSD of the replica at once; each answers when its stripe position is copied.
     * {@code rate} 0: the OSDs' setting. Path normalized.
     */
    public FillReplicaResponse[] fill(String path, FileCredentials credentials, Replica replica, long rate,
            long timeoutMs) throws XtreemFSException {
        String operation = "fill the new replica on " + replica.getOsdUuidsList() + " of " + volume.describe(path);
        Client client = volume.client();
        var stub = client.osd(timeoutMs);
        List<CompletableFuture<FillReplicaResponse>> fills = new ArrayList<>();
        for (String osd : replica.getOsdUuidsList()) {
            var address = client.resolve(osd);
            fills.add(stub.fillReplica(address, client.credentials(), FillReplicaRequest.newBuilder()
                    .setCredentials(credentials).setFileId(credentials.getXcap().getFileId())
                    .setRateBytesPerSecond(rate).build()));
        }
        FillReplicaResponse[] done = new FillReplicaResponse[fills.size()];
        for (int i = 0; i < done.length; i++) {
            try {
                done[i] = RpcClient.await(fills.get(i));
            } catch (RpcException e) {
                throw XtreemFSException.from(operation + " (the replica stays marked filling; run the same command"
                        + " again to finish it)", e);
            }
        }
        return done;
    }

    /** MRC_REPLICA_FILLED: the replica's filling mark goes (new XLoc version). Path normalized. */
    public ReplicaChangeResponse filled(String path, Replica replica) throws XtreemFSException {
        return volume.mrcCall("mark the replica on " + replica.getOsdUuidsList() + " of " + volume.describe(path)
                + " filled", false, (mrc, address) -> mrc.replicaFilled(address, volume.client().credentials(),
                        ReplicaFilledRequest.newBuilder().setVolumeName(volume.name()).setPath(path)
                                .addAllOsdUuids(replica.getOsdUuidsList()).build()));
    }

    /** Credentials of the file as it is now (a read-write open, for a fill left over). */
    private FileCredentials credentialsOf(String path) throws XtreemFSException {
        try (FileHandle handle = volume.open(path, OpenFlags.O_RDWR, 0)) {
            return handle.credentials();
        }
    }

    /** Deletes the removed replica's objects on its OSDs (they are not in the file's chain any more). */
    private void deleteObjects(String path, FileCredentials removed, Replica replica) throws XtreemFSException {
        Client client = volume.client();
        for (String osd : replica.getOsdUuidsList()) {
            client.callService("delete the objects of " + volume.describe(path) + " on removed replica OSD " + osd,
                    osd, true, address -> client.osd().unlink(address, client.credentials(), FileRequest.newBuilder()
                            .setCredentials(removed).setFileId(removed.getXcap().getFileId()).build()));
        }
    }

    private static long bytes(FillReplicaResponse[] done) {
        long sum = 0;
        for (FillReplicaResponse response : done) {
            sum += response.getBytesCopied();
        }
        return sum;
    }

    private static long millis(FillReplicaResponse[] done) {
        long most = 0;
        for (FillReplicaResponse response : done) {
            most = Math.max(most, response.getDurationMs());
        }
        return most;
    }
}
