package org.xtreemfs.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.NewFileSize;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.MkdirRequest;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.ReaddirRequest;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.UpdateFileSizeRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

class MrcServerTest {
    static final String SECRET = "test-secret-0123456789";
    static final UserCredentials ALICE = UserCredentials.newBuilder().setUsername("alice").setUid(1000)
            .setGid(1000).build();

    @TempDir
    Path database;
    private FakeDir dir;
    private MrcServer mrc;
    private RpcClient rpcClient;
    private MrcServiceClient client;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        dir = new FakeDir();
        dir.addOsd("osd-1", 10L << 30);
        dir.addOsd("osd-2", 10L << 30);
        mrc = startMrc();
        rpcClient = new RpcClient("test");
        client = new MrcServiceClient(rpcClient, 10_000);
    }

    private MrcServer startMrc() throws Exception {
        MrcServer server = new MrcServer(MrcConfig.of(Map.of(
                "mrc.bindAddress", "127.0.0.1",
                "mrc.port", "0",
                "mrc.status.port", "0",
                "mrc.database.path", database.toString(),
                "mrc.dir.address", "127.0.0.1:" + dir.address.getPort(),
                "mrc.heartbeat.periodMs", "50",
                "capability.secret", SECRET)));
        address = server.start();
        return server;
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        mrc.close();
        dir.close();
    }

    private OpenResponse open(String path, int flags) throws RpcException {
        return RpcClient.await(client.open(address, ALICE, OpenRequest.newBuilder().setVolumeName("vol")
                .setPath(path).setFlags(flags).setMode(0644).build()));
    }

    private void createVolume(int width) throws RpcException {
        RpcClient.await(client.volumeCreate(address, ALICE, VolumeCreateRequest.newBuilder().setVolume(
                Volume.newBuilder().setName("vol").setDefaultStripingPolicy(StripingPolicy.newBuilder()
                        .setWidth(width))).build()));
    }

    @Test
    void registersAtTheDirAndHeartbeats() {
        // The MRC registers as an MRC with a pbrpc mapping to its bound port and keeps re-registering.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(dir.services).containsKey(mrc.uuid());
            assertThat(dir.services.get(mrc.uuid()).getType()).isEqualTo(ServiceType.SERVICE_TYPE_MRC);
            assertThat(dir.mappings.get(mrc.uuid()).getMappings(0).getPort()).isEqualTo(address.getPort());
            assertThat(mrc.dirRegistration().heartbeatsSent()).isGreaterThan(2);
        });
    }

    @Test
    void volumeLifecycleRegistersAtTheDir() throws Exception {
        // Create registers the volume (by id, with this MRC's uuid) at the DIR; delete deregisters it.
        createVolume(1);
        assertThat(dir.volumes.get("vol").getMrcUuid()).isEqualTo(mrc.uuid());
        List<Volume> volumes = RpcClient.await(client.volumeList(address, ALICE, Empty.getDefaultInstance()))
                .getVolumesList();
        assertThat(volumes).extracting(Volume::getName).containsExactly("vol");
        assertThat(dir.volumes.get("vol").getVolumeId()).isEqualTo(volumes.get(0).getId());
        RpcClient.await(client.volumeDelete(address, ALICE, VolumeNameRequest.newBuilder().setVolumeName("vol")
                .build()));
        assertThat(dir.volumes).doesNotContainKey("vol");
        RpcException unknown = catchThrowableOfType(RpcException.class, () -> RpcClient.await(client.volumeDelete(
                address, ALICE, VolumeNameRequest.newBuilder().setVolumeName("vol").build())));
        assertThat(unknown.posixErrno()).isEqualTo(Errno.ENOENT);
        assertThat(unknown.getMessage()).contains("'vol'");
    }

    @Test
    void openIssuesSignedCapabilityAndLayoutOverTheDirOsds() throws Exception {
        // O_CREAT places the file on width=2 OSDs from the DIR and returns an XCap the OSDs' signer accepts.
        createVolume(2);
        OpenResponse opened = open("/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_RDWR_FLAG_VALUE);
        XCap capability = opened.getCredentials().getXcap();
        assertThat(new XCapSigner(SECRET).verify(capability)).isTrue();
        assertThat(capability.getFileId()).isEqualTo(capability.getVolumeId() + ":" + opened.getStat().getInode());
        assertThat(capability.getAccessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ_WRITE);
        assertThat(opened.getCredentials().getXlocs().getReplicas(0).getOsdUuidsList())
                .containsExactlyInAnyOrder("osd-1", "osd-2");
        FileLayoutResponse layout = RpcClient.await(client.getFileLayout(address, ALICE,
                PathRequest.newBuilder().setVolumeName("vol").setPath("/f").build()));
        assertThat(layout.getXlocs()).isEqualTo(opened.getCredentials().getXlocs());
        assertThat(layout.getFileId()).isEqualTo(capability.getFileId());
        String locations = RpcClient.await(client.getxattr(address, ALICE, XattrRequest.newBuilder()
                .setVolumeName("vol").setPath("/f").setName("xtreemfs.locations").build())).getValue().toStringUtf8();
        assertThat(locations).contains("osd-1").contains("osd-2").contains("\"width\":2");
    }

    @Test
    void notEnoughOsdsNamesNeededAndAvailable() throws Exception {
        // A best-effort stripe wider than the OSDs registered at the DIR is refused at creation naming both numbers
        // (OpenOpTest covers the open of a volume whose OSDs went away after it was made).
        RpcException error = catchThrowableOfType(RpcException.class, () -> createVolume(3));
        assertThat(error.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
        assertThat(error.getMessage()).contains("striping width 3").contains("the 2 OSD(s)");
    }

    @Test
    void truncateSequenceAndSizeUpdates() throws Exception {
        // Size updates grow the size; FTRUNCATE + update with the new epoch shrinks it; stale updates are ignored.
        createVolume(1);
        XCap capability = open("/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_RDWR_FLAG_VALUE)
                .getCredentials().getXcap();
        updateSize(capability, 1_000_000, capability.getTruncateEpoch());
        updateSize(capability, 10, capability.getTruncateEpoch());
        assertThat(size("/f")).isEqualTo(1_000_000);
        XCap truncating = RpcClient.await(client.ftruncate(address, ALICE, XCapRequest.newBuilder()
                .setXcap(capability).build())).getXcap();
        assertThat(truncating.getTruncateEpoch()).isEqualTo(capability.getTruncateEpoch() + 1);
        assertThat(new XCapSigner(SECRET).verify(truncating)).isTrue();
        updateSize(truncating, 300, truncating.getTruncateEpoch());
        assertThat(size("/f")).isEqualTo(300);
        updateSize(capability, 900_000, capability.getTruncateEpoch());
        assertThat(size("/f")).isEqualTo(300);
        updateSize(truncating, 400, truncating.getTruncateEpoch());
        assertThat(size("/f")).isEqualTo(400);
    }

    @Test
    void capabilityRenewalAndTampering() throws Exception {
        // Renewal re-signs with a later expiry; a tampered cap or a read cap for a write action is AUTH_FAILED.
        createVolume(1);
        XCap readOnly = open("/f", OpenFlag.O_CREAT_FLAG_VALUE).getCredentials().getXcap();
        XCap renewed = RpcClient.await(client.renewCapability(address, ALICE, XCapRequest.newBuilder()
                .setXcap(readOnly).build())).getXcap();
        assertThat(renewed.getExpiresMs()).isGreaterThanOrEqualTo(readOnly.getExpiresMs());
        assertThat(renewed.getFileId()).isEqualTo(readOnly.getFileId());
        XCap tampered = readOnly.toBuilder().setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).build();
        RpcException forged = catchThrowableOfType(RpcException.class, () -> RpcClient.await(
                client.renewCapability(address, ALICE, XCapRequest.newBuilder().setXcap(tampered).build())));
        assertThat(forged.errorType()).isEqualTo(ErrorType.AUTH_FAILED);
        assertThat(forged.getMessage()).contains("signature");
        RpcException readCap = catchThrowableOfType(RpcException.class, () -> RpcClient.await(client.ftruncate(
                address, ALICE, XCapRequest.newBuilder().setXcap(readOnly).build())));
        assertThat(readCap.errorType()).isEqualTo(ErrorType.AUTH_FAILED);
        XCap unsigned = readOnly.toBuilder().setSignature(ByteString.EMPTY).build();
        RpcException none = catchThrowableOfType(RpcException.class, () -> RpcClient.await(
                client.renewCapability(address, ALICE, XCapRequest.newBuilder().setXcap(unsigned).build())));
        assertThat(none.getMessage()).contains("unsigned");
    }

    @Test
    void unlinkOfLastLinkRecordsTheDeletionWhichSurvivesARestart() throws Exception {
        // The answer hands out no capability, only the directory as the unlink left it; the MRC recorded the file
        // for its OSDs in the unlink's batch, and a restarted MRC still has it waiting (this test's OSDs do not
        // exist, so it stays recorded).
        createVolume(1);
        open("/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_WRONLY_FLAG_VALUE);
        open("/kept", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_WRONLY_FLAG_VALUE);
        UnlinkResponse unlinked = RpcClient.await(client.unlink(address, ALICE, PathRequest.newBuilder()
                .setVolumeName("vol").setPath("/f").build()));
        assertThat(unlinked.getDirectoryStat().getInode()).as("the root directory's attributes").isEqualTo(1L);
        assertThat(unlinked.toBuilder().clearDirectoryStat().build()).isEqualTo(UnlinkResponse.getDefaultInstance());
        assertThat(mrc.objectDeletions().counters().get("deletedFilesRecorded")).as("deleted files recorded").isEqualTo(1L);
        assertThat(mrc.objectDeletions().counters().get("deletedFilesDone")).as("none done: no OSD took it").isZero();
        mrc.close();
        mrc = startMrc();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(mrc.objectDeletions().counters().get("deletedFilesWaiting")).as("waiting after the restart").isEqualTo(1L));
    }

    @Test
    void namespaceSurvivesRestart() throws Exception {
        // After close and restart on the same folder: same uuid, volume, tree, xattrs and sizes.
        createVolume(1);
        String uuid = mrc.uuid();
        RpcClient.await(client.mkdir(address, ALICE, MkdirRequest.newBuilder().setVolumeName("vol")
                .setPath("/d").setMode(0755).build()));
        XCap capability = open("/d/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_WRONLY_FLAG_VALUE)
                .getCredentials().getXcap();
        updateSize(capability, 12345, 0);
        RpcClient.await(client.setxattr(address, ALICE, XattrRequest.newBuilder().setVolumeName("vol")
                .setPath("/d/f").setName("user.color").setValue(ByteString.copyFromUtf8("blue")).build()));
        mrc.close();
        mrc = startMrc();
        assertThat(mrc.uuid()).isEqualTo(uuid);
        assertThat(size("/d/f")).isEqualTo(12345);
        assertThat(RpcClient.await(client.readdir(address, ALICE, ReaddirRequest.newBuilder().setVolumeName("vol")
                .setPath("/d").build())).getEntriesList()).extracting(DirectoryEntry::getName)
                .containsExactly(".", "..", "f");
        assertThat(RpcClient.await(client.getxattr(address, ALICE, XattrRequest.newBuilder().setVolumeName("vol")
                .setPath("/d/f").setName("user.color").build())).getValue().toStringUtf8()).isEqualTo("blue");
        assertThat(RpcClient.await(client.renewCapability(address, ALICE, XCapRequest.newBuilder()
                .setXcap(capability).build())).getXcap().getFileId()).isEqualTo(capability.getFileId());
    }

    @Test
    void errorsTravelAsErrnoWithTheBadValue() throws Exception {
        // Unknown volumes are ENOENT naming the volume; invalid names INVALID_ARGS naming the name.
        RpcException unknown = catchThrowableOfType(RpcException.class, () -> RpcClient.await(client.getattr(
                address, ALICE, PathRequest.newBuilder().setVolumeName("ghost").setPath("/").build())));
        assertThat(unknown.errorType()).isEqualTo(ErrorType.ERRNO);
        assertThat(unknown.posixErrno()).isEqualTo(Errno.ENOENT);
        assertThat(unknown.getMessage()).contains("'ghost'");
        RpcException invalid = catchThrowableOfType(RpcException.class, () -> RpcClient.await(client.volumeCreate(
                address, ALICE, VolumeCreateRequest.newBuilder().setVolume(Volume.newBuilder().setName("a/b"))
                        .build())));
        assertThat(invalid.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
        assertThat(invalid.getMessage()).contains("'a/b'");
    }

    @Test
    void garbageOnTheRpcPortLeavesTheServerServing() throws Exception {
        // Random bytes and an oversized record marker close only that connection; the MRC keeps answering.
        java.util.Random random = new java.util.Random(7);
        for (int attempt = 0; attempt < 3; attempt++) {
            try (java.net.Socket socket = new java.net.Socket(address.getAddress(), address.getPort())) {
                byte[] garbage = new byte[256];
                random.nextBytes(garbage);
                if (attempt == 2) {
                    java.nio.ByteBuffer.wrap(garbage).putInt(Integer.MAX_VALUE).putInt(Integer.MAX_VALUE);
                }
                socket.getOutputStream().write(garbage);
                socket.getOutputStream().flush();
            }
        }
        assertThat(RpcClient.await(client.ping(address, ALICE, Empty.getDefaultInstance())))
                .isEqualTo(Empty.getDefaultInstance());
        createVolume(1);
        assertThat(size("/")).isZero();
    }

    private void updateSize(XCap capability, long size, int epoch) throws RpcException {
        RpcClient.await(client.updateFileSize(address, ALICE, UpdateFileSizeRequest.newBuilder().setXcap(capability)
                .setNewFileSize(NewFileSize.newBuilder().setSizeBytes(size).setTruncateEpoch(epoch)).build()));
    }

    private long size(String path) throws RpcException {
        return RpcClient.await(client.getattr(address, ALICE, PathRequest.newBuilder().setVolumeName("vol")
                .setPath(path).build())).getStat().getSizeBytes();
    }
}
