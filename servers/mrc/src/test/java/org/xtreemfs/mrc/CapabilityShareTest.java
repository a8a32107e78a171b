package org.xtreemfs.mrc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.interfaces.mrc.VolumeSetReservationRequest;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * The reservation share in capabilities, through a real MRC: every XCap the MRC signs for a file of a
 * reserved volume (open, renew, ftruncate, unlink, rename) carries the admitted placement's per-OSD share
 * as the ledger holds it when the XCap is signed; a volume without reservation gets none.
 */
class CapabilityShareTest {
    private static final long MIB = 1L << 20;
    private static final UserCredentials ALICE = UserCredentials.newBuilder().setUsername("alice").setUid(1000)
            .setGid(1000).build();
    private static final int CREATE_RDWR = OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_RDWR_FLAG_VALUE;

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
        dir.addOsd("be-1", 10L << 30);
        dir.addTypedOsd("seq-1", OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        dir.addTypedOsd("seq-2", OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        dir.addTypedOsd("rnd-1", OsdProfiles.sataSsd(OsdUsageType.RANDOM));
        startMrc();
        rpcClient = new RpcClient("test");
        client = new MrcServiceClient(rpcClient, 10_000);
    }

    /** Starts an MRC on this test's database (again after a close: a restart). */
    private void startMrc() throws Exception {
        mrc = new MrcServer(MrcConfig.of(Map.of(
                "mrc.bindAddress", "127.0.0.1",
                "mrc.port", "0",
                "mrc.status.port", "0",
                "mrc.database.path", database.toString(),
                "mrc.dir.address", "127.0.0.1:" + dir.address.getPort(),
                "capability.secret", "test-secret-0123456789")));
        address = mrc.start();
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        mrc.close();
        dir.close();
    }

    private Volume createVolume(String name, QosReservation reservation) throws RpcException {
        Volume.Builder volume = Volume.newBuilder().setName(name).setMode(0777);
        if (reservation != null) {
            volume.setReservation(reservation);
        }
        return RpcClient.await(client.volumeCreate(address, ALICE, VolumeCreateRequest.newBuilder()
                .setVolume(volume).build()));
    }

    private static QosReservation sequential(long throughputMibPerSecond) {
        return QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(1L << 30)
                .setThroughputBytesPerSecond(throughputMibPerSecond * MIB).build();
    }

    private XCap open(String volume, String path) throws RpcException {
        return RpcClient.await(client.open(address, ALICE, OpenRequest.newBuilder().setVolumeName(volume)
                .setPath(path).setFlags(CREATE_RDWR).setMode(0644).build())).getCredentials().getXcap();
    }

    private QosPlacement placement(String volumeName) throws RpcException {
        return RpcClient.await(client.volumeList(address, ALICE, Empty.getDefaultInstance())).getVolumesList()
                .stream().filter(volume -> volume.getName().equals(volumeName)).findFirst().orElseThrow()
                .getPlacement();
    }

    @Test
    void openOfAReservedVolumeCarriesThePlacementsPerOsdShare() throws Exception {
        // The share in the signed XCap is exactly what the ledger placed on each stripe OSD.
        createVolume("seq", sequential(100));
        QosPlacement placement = placement("seq");
        assertThat(placement.getShareThroughputBytesPerSecond()).isPositive();
        XCap capability = open("seq", "/f");
        assertThat(QosWire.share(capability)).contains(new VolumeShare(ReservationType.SEQUENTIAL,
                placement.getShareThroughputBytesPerSecond(), 0));

        createVolume("rnd", QosReservation.newBuilder().setType(QosType.RANDOM).setCapacityBytes(1L << 30)
                .setIops(500).build());
        assertThat(QosWire.share(open("rnd", "/f"))).contains(new VolumeShare(ReservationType.RANDOM, 0,
                placement("rnd").getShareIops()));
    }

    @Test
    void aVolumeWithoutReservationGetsNoShare() throws Exception {
        createVolume("plain", null);
        XCap capability = open("plain", "/f");
        assertThat(capability.hasQosShare()).isFalse();
        XCap renewed = RpcClient.await(client.renewCapability(address, ALICE, XCapRequest.newBuilder()
                .setXcap(capability).build())).getXcap();
        assertThat(renewed.hasQosShare()).isFalse();
    }

    @Test
    void afterAnOnlineChangeEveryNewlySignedCapabilityCarriesTheNewShare() throws Exception {
        // An XCap from before the change keeps its old share (it is signed); renewal, ftruncate and a new open
        // carry the re-admitted share (unlink and rename hand out no XCap: the MRC deletes the objects itself).
        createVolume("seq", sequential(20));
        XCap before = open("seq", "/f");
        long oldShare = placement("seq").getShareThroughputBytesPerSecond();
        assertThat(QosWire.share(before).orElseThrow().throughputBytesPerSecond()).isEqualTo(oldShare);

        RpcClient.await(client.volumeSetReservation(address, ALICE, VolumeSetReservationRequest.newBuilder()
                .setVolumeName("seq").setReservation(sequential(40)).build()));
        long newShare = placement("seq").getShareThroughputBytesPerSecond();
        assertThat(newShare).isGreaterThan(oldShare);
        Optional<VolumeShare> expected = Optional.of(new VolumeShare(ReservationType.SEQUENTIAL, newShare, 0));

        XCapRequest request = XCapRequest.newBuilder().setXcap(before).build();
        XCap renewed = RpcClient.await(client.renewCapability(address, ALICE, request)).getXcap();
        assertThat(QosWire.share(renewed)).isEqualTo(expected);
        assertThat(renewed.getFileId()).isEqualTo(before.getFileId());
        assertThat(QosWire.share(RpcClient.await(client.ftruncate(address, ALICE, request)).getXcap()))
                .isEqualTo(expected);
        assertThat(QosWire.share(open("seq", "/f"))).isEqualTo(expected);
    }

    @Test
    void weightAndLimitSetOnlineReachEveryNewCapabilityAndSurviveARestart() throws Exception {
        // The volume's weight travels whole, its limit divided over the stripe width like the reservation;
        // both are stored with the reservation in the MRC's database.
        createVolume("seq", sequential(20));
        long share = placement("seq").getShareThroughputBytesPerSecond();
        int width = placement("seq").getOsdUuidsCount();
        QosReservation weighted = sequential(20).toBuilder().setWeight(3)
                .setLimitThroughputBytesPerSecond(60 * MIB).build();
        Volume changed = RpcClient.await(client.volumeSetReservation(address, ALICE, VolumeSetReservationRequest
                .newBuilder().setVolumeName("seq").setReservation(weighted).build()));
        assertThat(changed.getReservation()).isEqualTo(weighted);
        Optional<VolumeShare> expected = Optional.of(new VolumeShare(ReservationType.SEQUENTIAL, share, 0, 3,
                (60 * MIB + width - 1) / width, 0));
        assertThat(QosWire.share(open("seq", "/f"))).isEqualTo(expected);

        mrc.close();
        startMrc();
        assertThat(QosWire.share(open("seq", "/f"))).isEqualTo(expected);
        assertThat(RpcClient.await(client.volumeList(address, ALICE, Empty.getDefaultInstance())).getVolumesList()
                .stream().filter(volume -> volume.getName().equals("seq")).findFirst().orElseThrow()
                .getReservation()).isEqualTo(weighted);
    }
}
