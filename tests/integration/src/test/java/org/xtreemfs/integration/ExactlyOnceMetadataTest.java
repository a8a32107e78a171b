package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Client;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.interfaces.mrc.AddReplicaRequest;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MkdirRequest;
import org.xtreemfs.interfaces.mrc.MrcInterface;
import org.xtreemfs.interfaces.mrc.MrcProcedure;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.RemoveReplicaRequest;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.interfaces.mrc.ReplicaChangeResponse;
import org.xtreemfs.interfaces.mrc.ReplicaFilledRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * A change whose answer was lost is repeated with the same client id and request number
 * (rpc.proto, RequestHeader.client_id) and must get the first attempt's outcome, not EEXIST or ENOENT
 * because the first attempt did succeed: against a running MRC (the repeat simulates a dropped reply),
 * and across a kill -9 of the MRC right after the operation was applied.
 */
class ExactlyOnceMetadataTest {
    private static final UserCredentials ROOT = UserCredentials.newBuilder().setUsername("root").build();
    private static final int O_WRONLY_CREAT_EXCL = OpenFlags.O_WRONLY | OpenFlags.O_CREAT | OpenFlags.O_EXCL;
    private static final long TIMEOUT_MS = 10_000;
    private TestCluster cluster;
    private final RpcClient rpc = new RpcClient("exactly-once-test");

    @AfterEach
    void stop() {
        rpc.close();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void repeatedChangesGetTheFirstOutcomeAndNewRequestsAreAppliedAgain() throws Exception {
        cluster = TestCluster.start(1);
        createVolume("once");

        OpenResponse created = call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("once")
                .setPath("/f").setFlags(O_WRONLY_CREAT_EXCL).setMode(0644).build(), OpenResponse.parser(), "a", 1);
        OpenResponse repeated = call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("once")
                .setPath("/f").setFlags(O_WRONLY_CREAT_EXCL).setMode(0644).build(), OpenResponse.parser(), "a", 1);
        assertThat(repeated.getStat().getInode()).as("the repeat answers with the file it created")
                .isEqualTo(created.getStat().getInode());
        assertThat(repeated.getCredentials().getXcap().getFileId())
                .isEqualTo(created.getCredentials().getXcap().getFileId());
        assertThat(repeated.getCredentials().getXcap().getSignature()).as("with a capability issued fresh")
                .isNotEmpty();
        assertThat(created.hasDirectoryStat()).as("the first attempt hands back the directory").isTrue();
        assertThat(repeated.hasDirectoryStat()).as("the repeat does not (the directory may have changed since)")
                .isFalse();
        assertThat(repeated.getStat()).as("and answers with the same file").isEqualTo(created.getStat());
        assertErrno(() -> call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("once").setPath("/f")
                .setFlags(O_WRONLY_CREAT_EXCL).setMode(0644).build(), OpenResponse.parser(), "a", 2), Errno.EEXIST);
        assertErrno(() -> call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("once").setPath("/f")
                .setFlags(O_WRONLY_CREAT_EXCL).setMode(0644).build(), OpenResponse.parser(), "b", 1), Errno.EEXIST);

        long dirInode = call(MrcProcedure.MRC_MKDIR, mkdir("once", "/d"), GetattrResponse.parser(), "a", 3)
                .getStat().getInode();
        assertThat(call(MrcProcedure.MRC_MKDIR, mkdir("once", "/d"), GetattrResponse.parser(), "a", 3).getStat()
                .getInode()).isEqualTo(dirInode);

        RenameRequest rename = RenameRequest.newBuilder().setVolumeName("once").setSourcePath("/f")
                .setTargetPath("/d/g").build();
        call(MrcProcedure.MRC_RENAME, rename, UnlinkResponse.parser(), "a", 4);
        call(MrcProcedure.MRC_RENAME, rename, UnlinkResponse.parser(), "a", 4);
        assertErrno(() -> call(MrcProcedure.MRC_RENAME, rename, UnlinkResponse.parser(), "a", 5), Errno.ENOENT);

        PathRequest unlink = PathRequest.newBuilder().setVolumeName("once").setPath("/d/g").build();
        UnlinkResponse removed = call(MrcProcedure.MRC_UNLINK, unlink, UnlinkResponse.parser(), "a", 6);
        UnlinkResponse removedAgain = call(MrcProcedure.MRC_UNLINK, unlink, UnlinkResponse.parser(), "a", 6);
        assertThat(removed.hasDirectoryStat()).as("the first attempt hands back the directory").isTrue();
        assertThat(removedAgain).as("the repeat answers as the first attempt, without the directory's attributes"
                + " (they may have changed since the first attempt)")
                .isEqualTo(removed.toBuilder().clearDirectoryStat().build());
        assertErrno(() -> call(MrcProcedure.MRC_UNLINK, unlink, UnlinkResponse.parser(), "a", 7), Errno.ENOENT);

        assertThatThrownBy(() -> call(MrcProcedure.MRC_RMDIR, PathRequest.newBuilder().setVolumeName("once")
                .setPath("/d").build(), org.xtreemfs.interfaces.rpc.Empty.parser(), "a", 3))
                .as("a number reused for another procedure is refused, not answered with another outcome")
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS));
        String status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + cluster.mrc().statusPort() + "/status.json")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(status).as("the status page counts the four repeats answered from a record")
                .containsPattern("\"outcomesReplayed\"\\s*:\\s*4\\b");
        assertThat(status).as("the unlinked file's deletion was recorded once, not again by the repeat")
                .containsPattern("\"deletedFilesRecorded\"\\s*:\\s*1\\b");
    }

    @Test
    void aChangeAppliedJustBeforeAKillDashNineIsAnsweredAfterTheRestart() throws Exception {
        cluster = TestCluster.startProcesses(List.of(Map.of()), Map.of());
        createVolume("crash");
        long inode = call(MrcProcedure.MRC_MKDIR, mkdir("crash", "/made"), GetattrResponse.parser(), "c", 41)
                .getStat().getInode();
        OpenResponse created = call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("crash")
                .setPath("/new").setFlags(O_WRONLY_CREAT_EXCL).setMode(0600).build(), OpenResponse.parser(), "c", 42);
        // The answers above stand for answers that were lost: the MRC dies at once, before the client
        // could have seen them, and the client repeats both after the restart.
        cluster.kill("mrc", "KILL");
        cluster.restart("mrc");
        assertThat(call(MrcProcedure.MRC_MKDIR, mkdir("crash", "/made"), GetattrResponse.parser(), "c", 41)
                .getStat().getInode()).isEqualTo(inode);
        assertThat(call(MrcProcedure.MRC_OPEN, OpenRequest.newBuilder().setVolumeName("crash").setPath("/new")
                .setFlags(O_WRONLY_CREAT_EXCL).setMode(0600).build(), OpenResponse.parser(), "c", 42).getStat()
                .getInode()).isEqualTo(created.getStat().getInode());
        assertErrno(() -> call(MrcProcedure.MRC_MKDIR, mkdir("crash", "/made"), GetattrResponse.parser(), "c", 43),
                Errno.EEXIST);
    }

    // MRC_ADD_REPLICA, MRC_REPLICA_FILLED and MRC_REMOVE_REPLICA repeated after a lost answer: one effect each (one
    // replica added, one mark cleared, one replica removed, each under one new XLoc version), the repeat answered
    // with the first outcome; without the journal the repeated add was refused EBUSY and the repeated removal EINVAL.
    @Test
    void repeatedReplicaChangesHaveOneEffect() throws Exception {
        cluster = TestCluster.start(4);
        try (Client client = cluster.client()) {
            client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("copies").setMode(0777)
                    .setDefaultStripingPolicy(org.xtreemfs.interfaces.common.StripingPolicy.newBuilder()
                            .setType(org.xtreemfs.interfaces.common.StripingPolicyType.RAID0)
                            .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                    .setDefaultReplicationPolicy(org.xtreemfs.interfaces.common.ReplicationPolicy.newBuilder()
                            .setReplicas(2)).build());
        }
        org.xtreemfs.interfaces.common.XLocSet placed = org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30)).ignoreExceptions().until(() -> call(MrcProcedure.MRC_OPEN,
                        OpenRequest.newBuilder().setVolumeName("copies").setPath("/f").setFlags(OpenFlags.O_CREAT
                                | OpenFlags.O_RDWR).setMode(0644).build(), OpenResponse.parser(), "r", 0)
                        .getCredentials().getXlocs(), xlocs -> xlocs.getReplicasCount() == 2);

        AddReplicaRequest add = AddReplicaRequest.newBuilder().setVolumeName("copies").setPath("/f").build();
        ReplicaChangeResponse added = call(MrcProcedure.MRC_ADD_REPLICA, add, ReplicaChangeResponse.parser(), "r", 1);
        ReplicaChangeResponse addedAgain = call(MrcProcedure.MRC_ADD_REPLICA, add, ReplicaChangeResponse.parser(),
                "r", 1);
        assertThat(added.getCredentials().getXlocs().getVersion()).isEqualTo(placed.getVersion() + 1);
        assertThat(added.getCredentials().getXlocs().getReplicasCount()).isEqualTo(3);
        assertThat(addedAgain.getCredentials().getXlocs()).as("the repeat answers the first outcome")
                .isEqualTo(added.getCredentials().getXlocs());
        assertThat(layout()).as("one replica added").isEqualTo(added.getCredentials().getXlocs());
        assertErrno(() -> call(MrcProcedure.MRC_ADD_REPLICA, add, ReplicaChangeResponse.parser(), "r", 2),
                Errno.EBUSY);

        java.util.List<String> filling = added.getCredentials().getXlocs().getReplicasList().stream()
                .filter(org.xtreemfs.interfaces.common.Replica::getFilling).findFirst().orElseThrow()
                .getOsdUuidsList();
        ReplicaFilledRequest filled = ReplicaFilledRequest.newBuilder().setVolumeName("copies").setPath("/f")
                .addAllOsdUuids(filling).build();
        ReplicaChangeResponse marked = call(MrcProcedure.MRC_REPLICA_FILLED, filled, ReplicaChangeResponse.parser(),
                "r", 3);
        assertThat(call(MrcProcedure.MRC_REPLICA_FILLED, filled, ReplicaChangeResponse.parser(), "r", 3)
                .getCredentials().getXlocs()).isEqualTo(marked.getCredentials().getXlocs());
        assertThat(marked.getCredentials().getXlocs().getVersion()).isEqualTo(placed.getVersion() + 2);
        assertThat(layout()).as("one mark cleared, under one version").isEqualTo(marked.getCredentials().getXlocs());

        RemoveReplicaRequest remove = RemoveReplicaRequest.newBuilder().setVolumeName("copies").setPath("/f")
                .addAllOsdUuids(placed.getReplicas(0).getOsdUuidsList()).build();
        ReplicaChangeResponse removed = call(MrcProcedure.MRC_REMOVE_REPLICA, remove, ReplicaChangeResponse.parser(),
                "r", 4);
        ReplicaChangeResponse removedAgain = call(MrcProcedure.MRC_REMOVE_REPLICA, remove,
                ReplicaChangeResponse.parser(), "r", 4);
        assertThat(removed.getCredentials().getXlocs().getReplicasCount()).isEqualTo(2);
        assertThat(removedAgain.getCredentials().getXlocs()).isEqualTo(removed.getCredentials().getXlocs());
        assertThat(removedAgain.getRemoved().getXlocs()).as("the repeat names the same removed replica")
                .isEqualTo(removed.getRemoved().getXlocs());
        assertThat(layout()).as("one replica removed").isEqualTo(removed.getCredentials().getXlocs());
        assertErrno(() -> call(MrcProcedure.MRC_REMOVE_REPLICA, remove, ReplicaChangeResponse.parser(), "r", 5),
                Errno.EINVAL);

        String status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + cluster.mrc().statusPort() + "/status.json")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(status).as("the status page counts the three repeats answered from a record")
                .containsPattern("\"outcomesReplayed\"\\s*:\\s*3\\b");
    }

    /** The file /f's XLoc as the MRC has it now. */
    private org.xtreemfs.interfaces.common.XLocSet layout() throws Exception {
        return call(MrcProcedure.MRC_GET_FILE_LAYOUT, PathRequest.newBuilder().setVolumeName("copies").setPath("/f")
                .build(), org.xtreemfs.interfaces.mrc.FileLayoutResponse.parser(), "", 0).getXlocs();
    }

    private void createVolume(String name) throws Exception {
        try (Client client = cluster.client()) {
            Volumes.create(client, name, 1);
        }
    }

    private static MkdirRequest mkdir(String volume, String path) {
        return MkdirRequest.newBuilder().setVolumeName(volume).setPath(path).setMode(0755).build();
    }

    private <T> T call(MrcProcedure procedure, MessageLite request, Parser<T> parser, String clientId,
            long requestNumber) throws RpcException {
        InetSocketAddress mrc = new InetSocketAddress("127.0.0.1", cluster.launcher().port("mrc"));
        try (RpcResponse response = RpcClient.await(rpc.call(mrc, MrcInterface.MRC_INTERFACE_ID_VALUE,
                procedure.getNumber(), ROOT, request, null, TIMEOUT_MS, clientId, requestNumber))) {
            return response.message(parser);
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void assertErrno(Call call, int errno) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(RpcException.class,
                e -> assertThat(e.posixErrno()).as(e.getMessage()).isEqualTo(errno));
    }
}
