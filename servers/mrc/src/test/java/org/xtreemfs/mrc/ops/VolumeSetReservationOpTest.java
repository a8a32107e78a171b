package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectInvalidArgs;

import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/** VolumeSetReservationOp.changeReservation: online re-admission on the volume's own OSDs, in one batch. */
class VolumeSetReservationOpTest {
    private static final long MIB = 1L << 20;

    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;
    private Volume volume;

    private static QosReservation sequential(long throughputMibPerSecond) {
        return QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(1L << 30)
                .setThroughputBytesPerSecond(throughputMibPerSecond * MIB).build();
    }

    @BeforeEach
    void createReservedVolume() throws Exception {
        volume = fixture.createVolume(fixture.as(ALICE), Volume.newBuilder().setName("seq")
                .setReservation(sequential(40)).build(), "11111111-2222-3333-4444-555555555555");
    }

    private QosPlacement placement() {
        return fixture.ledger.placement(volume.getId(), Set.of()).orElseThrow();
    }

    @Test
    void growingAndShrinkingKeepThePlacementAndStoreTheNewFigures() throws Exception {
        // The owner changes throughput both ways; the stripe stays on the same OSDs, each share follows the
        // demand, and the volume record, the live ledger and a ledger reloaded from the store agree.
        QosPlacement before = placement();
        Volume grown = VolumeSetReservationOp.changeReservation(namespace, fixture.ledger, fixture.as(ALICE), "seq",
                sequential(80));
        assertThat(grown.getReservation()).isEqualTo(sequential(80));
        assertThat(namespace.volume("seq").getReservation()).isEqualTo(sequential(80));
        QosPlacement after = placement();
        assertThat(after.getOsdUuidsList()).isEqualTo(before.getOsdUuidsList());
        assertThat(after.getShareThroughputBytesPerSecond()).isGreaterThan(before.getShareThroughputBytesPerSecond());
        ReservationLedger reloaded = ReservationLedger.load(fixture.store, new ReservationScheduler());
        assertThat(reloaded.placement(volume.getId(), Set.of())).contains(after);

        VolumeSetReservationOp.changeReservation(namespace, fixture.ledger, fixture.as(ROOT), "seq", sequential(20));
        assertThat(placement().getShareThroughputBytesPerSecond())
                .isLessThan(before.getShareThroughputBytesPerSecond());
        assertThat(namespace.volume("seq").getReservation()).isEqualTo(sequential(20));
    }

    @Test
    void aChangeThatDoesNotFitIsEnospcAndChangesNothing() throws Exception {
        // A throughput no placement can carry is refused with the scheduler's reason; record and ledger stay.
        QosPlacement before = placement();
        String message = expectErrno(Errno.ENOSPC, () -> VolumeSetReservationOp.changeReservation(namespace,
                fixture.ledger, fixture.as(ALICE), "seq", sequential(1_000_000)));
        assertThat(message).contains("seq");
        assertThat(namespace.volume("seq").getReservation()).isEqualTo(sequential(40));
        assertThat(placement()).isEqualTo(before);
        assertThat(ReservationLedger.load(fixture.store, new ReservationScheduler())
                .placement(volume.getId(), Set.of())).contains(before);
    }

    @Test
    void onlyOwnerOrRootMayChangeAndTheTypeStays() throws Exception {
        // Others get EPERM naming the owner; the type cannot change online and a reservation cannot be
        // dropped; an unknown volume is ENOENT naming it.
        assertThat(expectErrno(Errno.EPERM, () -> VolumeSetReservationOp.changeReservation(namespace,
                fixture.ledger, fixture.as(BOB), "seq", sequential(80)))).contains("uid 1000").contains("'seq'");
        QosReservation random = QosReservation.newBuilder().setType(QosType.RANDOM).setCapacityBytes(1L << 30)
                .setIops(10).build();
        assertThat(expectInvalidArgs(() -> VolumeSetReservationOp.changeReservation(namespace, fixture.ledger,
                fixture.as(ALICE), "seq", random))).contains("cannot change");
        assertThat(expectInvalidArgs(() -> VolumeSetReservationOp.changeReservation(namespace, fixture.ledger,
                fixture.as(ALICE), "seq", QosReservation.getDefaultInstance()))).contains("cannot be removed");
        assertThat(expectErrno(Errno.ENOENT, () -> VolumeSetReservationOp.changeReservation(namespace,
                fixture.ledger, fixture.as(ALICE), "nope", sequential(80)))).contains("'nope'");
        assertThat(namespace.volume("seq").getReservation()).isEqualTo(sequential(40));
    }
}
