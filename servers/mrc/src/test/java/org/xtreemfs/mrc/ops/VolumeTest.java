package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectInvalidArgs;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;

/** VolumeCreateOp.createVolume and VolumeDeleteOp.deleteVolume: defaults, validation, admission, deletion. */
class VolumeTest {
    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;

    private Volume create(Volume.Builder request) throws Exception {
        return fixture.createVolume(fixture.as(ALICE), request.build(), "11111111-2222-3333-4444-555555555555");
    }

    @Test
    void createFillsDefaultsAndOwnerFromCredentials() throws Exception {
        // A bare create gets RAID0 1 MiB width 1, mode 0777, the caller as owner and a root directory.
        Volume volume = create(Volume.newBuilder().setName("data"));
        assertThat(volume.getId()).isEqualTo("11111111-2222-3333-4444-555555555555");
        assertThat(volume.getOwnerUid()).isEqualTo(1000);
        assertThat(volume.getOwnerUsername()).isEqualTo("alice");
        assertThat(volume.getMode()).isEqualTo(0777);
        assertThat(volume.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(1 << 20);
        assertThat(volume.getDefaultStripingPolicy().getWidth()).isEqualTo(1);
        Stat root = GetattrOp.getattr(namespace, fixture.as(ALICE), "data", "/");
        assertThat(root.getBlksize()).isEqualTo(1 << 20);
        assertThat(root.getMode()).isEqualTo(FileModes.S_IFDIR | 0777);
        assertThat(root.getUid()).isEqualTo(1000);
        assertThat(root.getNlink()).isEqualTo(2);
        assertThat(namespace.listVolumes()).extracting(Volume::getName).containsExactly("data");
    }

    @Test
    void createKeepsGivenOwnerStripingAndReservation() throws Exception {
        // Explicit owner, object size and a consistent reservation are stored as given; the admitted placement
        // sets the stripe width, and the volume's files go to exactly its OSDs.
        QosReservation reservation = QosReservation.newBuilder().setType(QosType.SEQUENTIAL)
                .setCapacityBytes(1L << 30).setThroughputBytesPerSecond(150L << 20).build();
        Volume volume = create(Volume.newBuilder().setName("seq").setOwnerUid(7).setOwnerGid(8)
                .setOwnerUsername("svc").setMode(0750)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(1 << 20).setWidth(3))
                .setReservation(reservation));
        assertThat(volume.getOwnerUid()).isEqualTo(7);
        assertThat(volume.getReservation()).isEqualTo(reservation);
        assertThat(namespace.volume("seq")).isEqualTo(volume);
        assertThat(volume.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(1 << 20);
        java.util.List<String> stripe = fixture.ledger.stripeOsds(volume.getId()).orElseThrow();
        assertThat(volume.getDefaultStripingPolicy().getWidth()).isEqualTo(stripe.size());
        assertThat(stripe).allMatch(uuid -> uuid.startsWith("seq-"));
        fixture.open(fixture.as(ROOT), "seq", "/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_RDWR_FLAG_VALUE, 0644);
        InodeRecord file = namespace.resolve(namespace.begin(), namespace.volume("seq"), ROOT, "/f");
        assertThat(file.xlocs().getReplicas(0).getOsdUuidsList()).isEqualTo(stripe);
    }

    @Test
    void aReservedOrReplicatedVolumeDefaultsToSmallObjects() throws Exception {
        // Without an object size, a reserved volume gets 128 KiB (the unit its OSDs' profiles are measured in), as
        // does a replicated one (its tail's log index); a plain volume 1 MiB (createFillsDefaults...). A new file's
        // XLoc carries the volume's size.
        QosReservation reservation = QosReservation.newBuilder().setType(QosType.RANDOM)
                .setCapacityBytes(1L << 30).setIops(50).build();
        Volume reserved = create(Volume.newBuilder().setName("db").setReservation(reservation));
        assertThat(reserved.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(128 * 1024);
        fixture.open(fixture.as(ROOT), "db", "/f", OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_RDWR_FLAG_VALUE, 0644);
        InodeRecord file = namespace.resolve(namespace.begin(), namespace.volume("db"), ROOT, "/f");
        assertThat(file.xlocs().getReplicas(0).getStripingPolicy().getObjectSizeBytes()).isEqualTo(128 * 1024);
        Volume replicated = fixture.createVolume(fixture.as(ALICE), Volume.newBuilder().setName("chain")
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(2)).build(), "chain-id");
        assertThat(replicated.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(128 * 1024);
        Volume single = fixture.createVolume(fixture.as(ALICE), Volume.newBuilder().setName("single")
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(1)).build(), "single-id");
        assertThat(single.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(1 << 20);
    }

    @Test
    void refusedReservationsCreateNothing() {
        // A reservation no OSD can carry fails with ENOSPC and the scheduler's reason, and no volume is left.
        QosReservation tooMuch = QosReservation.newBuilder().setType(QosType.RANDOM).setCapacityBytes(1L << 30)
                .setIops(1_000_000).build();
        assertThat(expectErrno(Errno.ENOSPC, () -> create(Volume.newBuilder().setName("db").setReservation(tooMuch))))
                .contains("volume 'db'").contains("iops short by");
        assertThat(namespace.listVolumes()).isEmpty();
    }

    @Test
    void invalidNamesAreRejectedNamingTheName() {
        // Empty, '/', control characters and over-long names are INVALID_ARGS naming the name.
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("")))).contains("''");
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("a/b")))).contains("'a/b'");
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("tab\there")))).contains("tab\\x09here");
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("x".repeat(256))))).contains("xxx");
    }

    @Test
    void duplicateIsEexistAndUnknownIsEnoent() throws Exception {
        // A second volume with the same name fails; unknown names fail with ENOENT naming the volume.
        create(Volume.newBuilder().setName("data"));
        assertThat(expectErrno(Errno.EEXIST, () -> create(Volume.newBuilder().setName("data")))).contains("'data'");
        assertThat(expectErrno(Errno.ENOENT, () -> namespace.volume("nope"))).contains("'nope'");
        assertThat(expectErrno(Errno.ENOENT, () -> fixture.deleteVolume(fixture.as(ROOT), "nope")))
                .contains("'nope'");
    }

    @Test
    void reservationFieldsMustMatchTheType() {
        // Throughput only for SEQUENTIAL, IOPS only for RANDOM, neither for COLD/BEST_EFFORT; missing ones named.
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.SEQUENTIAL, 1 << 30, 0, 0))))
                .contains("throughput:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.RANDOM, 1 << 30, 0, 0)))).contains("iops:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.RANDOM, 1 << 30, 10, 100))))
                .contains("throughput:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.SEQUENTIAL, 1 << 30, 10, 100))))
                .contains("iops:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.COLD, 1 << 30, 10, 0))))
                .contains("throughput:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.BEST_EFFORT, 1 << 30, 0, 5))))
                .contains("iops:");
        assertThat(expectInvalidArgs(() -> create(reservation(QosType.COLD, 0, 0, 0)))).contains("capacity:");
    }

    @Test
    void consistentReservationsOfEveryTypeAreAccepted() throws Exception {
        // Each type with exactly its own fields is accepted.
        create(reservation(QosType.SEQUENTIAL, 1 << 30, 100, 0).setName("s"));
        fixture.createVolume(fixture.as(ALICE), reservation(QosType.RANDOM, 1 << 30, 0, 2000).setName("r").build(),
                "r-id");
        fixture.createVolume(fixture.as(ALICE), reservation(QosType.COLD, 1 << 30, 0, 0).setName("c").build(), "c-id");
        assertThat(namespace.listVolumes()).extracting(Volume::getName).containsExactly("c", "r", "s");
    }

    @Test
    void badStripingAndPolicyAreInvalidArgs() {
        // Object sizes that are not 4 KiB multiples, oversized widths and unknown policies are named.
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("v")
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(1000))))).contains("1000");
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("v")
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setWidth(1000))))).contains("1000");
        assertThat(expectInvalidArgs(() -> create(Volume.newBuilder().setName("v")
                .setOsdSelectionPolicy("fastest")))).contains("'fastest'");
    }

    @Test
    void deleteRemovesEverythingAndOnlyOwnerOrRootMay() throws Exception {
        // Only owner/root may delete; afterwards the name is free and no record of the volume remains.
        Volume volume = create(Volume.newBuilder().setName("data"));
        MkdirOp.mkdir(namespace, fixture.as(ALICE), "data", "/d", 0755);
        expectErrno(Errno.EPERM, () -> fixture.deleteVolume(fixture.as(BOB), "data"));
        fixture.deleteVolume(fixture.as(ALICE), "data");
        assertThat(namespace.listVolumes()).isEmpty();
        assertThat(namespace.volumeById(volume.getId())).isEmpty();
        create(Volume.newBuilder().setName("data"));
        expectErrno(Errno.ENOENT, () -> GetattrOp.getattr(namespace, fixture.as(ALICE), "data", "/d"));
    }

    private static Volume.Builder reservation(QosType type, long capacity, long throughput, long iops) {
        return Volume.newBuilder().setName("v").setReservation(QosReservation.newBuilder().setType(type)
                .setCapacityBytes(capacity).setThroughputBytesPerSecond(throughput).setIops(iops));
    }
}
