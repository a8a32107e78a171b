package org.xtreemfs.mrc.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosHeadroom;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

class ReservationLedgerTest {
    private static final long MIB = 1L << 20;
    private final InMemoryKvStore store = new InMemoryKvStore();
    private final ReservationScheduler scheduler = new ReservationScheduler();

    /** A random OSD of 1 GiB and {@code iops} IOPS as the DIR would report it. */
    private static Service randomOsd(String uuid, long iops, boolean alive) {
        OsdProfile profile = new OsdProfile(OsdUsageType.RANDOM, DeviceClass.SSD, 1L << 30,
                ThroughputCurve.flat(100 * MIB), iops);
        return Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD).setUuid(uuid)
                .setStatus(alive ? ServiceStatus.SERVICE_STATUS_AVAILABLE : ServiceStatus.SERVICE_STATUS_DEAD)
                .setOsdAttributes(OsdAttributes.newBuilder().setProfile(QosWire.toWire(profile).setSource("test")))
                .build();
    }

    private static List<OsdReport> reports(Service... services) {
        return OsdReport.of(List.of(services));
    }

    /** What an operation does with an admitted decision: write it in one batch, then publish. */
    private void commit(ReservationLedger ledger, LedgerChange change) {
        WriteBatch batch = new WriteBatch();
        change.forEachWrite((key, value) -> {
            if (value.isPresent()) {
                batch.put(key, value.get());
            } else {
                batch.delete(key);
            }
        });
        store.write(batch, Durability.SYNC);
        ledger.publish(change);
    }

    private LedgerChange admitted(ReservationLedger.Decision decision) {
        assertThat(decision).isInstanceOf(ReservationLedger.Decision.Admitted.class);
        return ((ReservationLedger.Decision.Admitted) decision).change();
    }

    // Admissions are decided against what is committed: the second of two reservations that together exceed
    // the OSD is refused naming the short dimension and what would fit, and a reload restores the same ledger.
    @Test
    void admissionsAddUpAndSurviveAReload() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        List<OsdReport> dir = reports(randomOsd("osd-a", 100, true));
        commit(ledger, admitted(ledger.admit("v1", "one", Reservation.random(100 * MIB, 70), dir)));
        ReservationLedger.Decision second = ledger.admit("v2", "two", Reservation.random(100 * MIB, 40), dir);
        assertThat(second).isInstanceOf(ReservationLedger.Decision.Refused.class);
        assertThat(((ReservationLedger.Decision.Refused) second).reason())
                .contains("volume 'two'").contains("iops short by 10IOPS").contains("30IOPS");
        ReservationLedger reloaded = ReservationLedger.load(store, scheduler);
        assertThat(reloaded.state()).isEqualTo(ledger.state());
        assertThat(reloaded.stripeOsds("v1")).contains(List.of("osd-a"));
    }

    // A decision that was never committed (the MRC died before its batch) leaves no trace after a reload,
    // and a released volume's resources are free again, also after a reload.
    @Test
    void onlyCommittedDecisionsCountAndReleaseReturnsResources() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        List<OsdReport> dir = reports(randomOsd("osd-a", 100, true));
        ledger.admit("lost", "lost", Reservation.random(MIB, 90), dir);
        assertThat(ReservationLedger.load(store, scheduler).stripeOsds("lost")).isEmpty();
        commit(ledger, admitted(ledger.admit("v1", "one", Reservation.random(MIB, 90), dir)));
        commit(ledger, ledger.release("v1"));
        ReservationLedger reloaded = ReservationLedger.load(store, scheduler);
        assertThat(reloaded.stripeOsds("v1")).isEmpty();
        commit(reloaded, admitted(reloaded.admit("v2", "two", Reservation.random(MIB, 100), dir)));
    }

    // A dead OSD keeps its volumes (at risk, shown), takes no new one, and resumes when it comes back.
    @Test
    void deadOsdsKeepTheirReservationsAtRiskAndResume() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        commit(ledger, admitted(ledger.admit("v1", "one", Reservation.random(MIB, 60),
                reports(randomOsd("osd-a", 100, true)))));
        List<OsdReport> aDead = reports(randomOsd("osd-a", 100, false), randomOsd("osd-b", 100, true));
        assertThat(ledger.placement("v1", ledger.unavailable(aDead)).orElseThrow().getUnavailableOsdUuidsList())
                .containsExactly("osd-a");
        LedgerChange onB = admitted(ledger.admit("v2", "two", Reservation.random(MIB, 30), aDead));
        commit(ledger, onB);
        assertThat(ledger.stripeOsds("v2")).contains(List.of("osd-b"));
        QosStatus status = ledger.status(aDead);
        OsdQosState a = status.getOsdsList().stream().filter(osd -> osd.getUuid().equals("osd-a")).findFirst()
                .orElseThrow();
        assertThat(a.getAvailable()).isFalse();
        assertThat(a.getReservedIops()).isEqualTo(60);
        assertThat(a.getVolumeIdsList()).containsExactly("v1");
        QosHeadroom random = status.getFreeList().stream().filter(free -> free.getType() == QosType.RANDOM)
                .findFirst().orElseThrow();
        assertThat(random.getIopsMax()).as("only osd-b counts while osd-a is dead").isEqualTo(70);
        List<OsdReport> aBack = reports(randomOsd("osd-a", 100, true), randomOsd("osd-b", 100, true));
        assertThat(ledger.placement("v1", ledger.unavailable(aBack)).orElseThrow().getUnavailableOsdUuidsList())
                .isEmpty();
        // An OSD the DIR no longer lists at all is unavailable too.
        assertThat(ledger.unavailable(reports(randomOsd("osd-b", 100, true)))).containsExactly("osd-a");
    }

    // A recalibrated OSD whose new profile is below what is reserved on it is reported, not over-committed;
    // a higher one replaces the recorded profile.
    @Test
    void aLowerProfileIsReportedNotApplied() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        commit(ledger, admitted(ledger.admit("v1", "one", Reservation.random(MIB, 60),
                reports(randomOsd("osd-a", 100, true)))));
        QosStatus lowered = ledger.status(reports(randomOsd("osd-a", 50, true)));
        assertThat(lowered.getOsds(0).getWarning()).contains("lower than what is reserved").contains("iops");
        assertThat(lowered.getOsds(0).getLimitIops()).isEqualTo(100);
        assertThat(ledger.admit("v2", "two", Reservation.random(MIB, 41), reports(randomOsd("osd-a", 50, true))))
                .isInstanceOf(ReservationLedger.Decision.Refused.class);
        commit(ledger, admitted(ledger.admit("v2", "two", Reservation.random(MIB, 100),
                reports(randomOsd("osd-a", 200, true)))));
        assertThat(ReservationLedger.load(store, scheduler).state().osd("osd-a").orElseThrow().profile().randomIops())
                .isEqualTo(200);
    }

    // An online change is admitted on the volume's own OSDs or refused with the reason; the type is fixed.
    @Test
    void changesAreReadmittedOnTheSameOsds() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        List<OsdReport> dir = reports(randomOsd("osd-a", 100, true), randomOsd("osd-b", 100, true));
        commit(ledger, admitted(ledger.admit("v1", "one", Reservation.random(MIB, 50), dir)));
        List<String> stripe = ledger.stripeOsds("v1").orElseThrow();
        commit(ledger, admitted(ledger.readmit("v1", "one", Reservation.random(MIB, 100), dir)));
        assertThat(ledger.stripeOsds("v1")).contains(stripe);
        ReservationLedger.Decision tooMuch = ledger.readmit("v1", "one", Reservation.random(MIB, 101), dir);
        assertThat(((ReservationLedger.Decision.Refused) tooMuch).reason()).contains("volume 'one'")
                .contains("iops short by 1IOPS");
        assertThat(((ReservationLedger.Decision.Refused) ledger.readmit("v1", "one", Reservation.cold(MIB), dir))
                .reason()).contains("cannot change");
        assertThat(((ReservationLedger.Decision.Refused) ledger.readmit("none", "plain", Reservation.cold(MIB), dir))
                .reason()).contains("no reservation");
    }

    // Weight and limit are stored with the reservation (they survive a reload), reach the capability share with
    // the limit divided over the stripe width, and change online even on a full OSD: admission ignores them.
    @Test
    void weightAndLimitAreKeptWithTheReservationAndIgnoredByAdmission() {
        ReservationLedger ledger = ReservationLedger.load(store, scheduler);
        List<OsdReport> dir = reports(randomOsd("osd-a", 100, true), randomOsd("osd-b", 100, true));
        Reservation weighted = new Reservation(ReservationType.RANDOM, MIB, 0, 200, 3, 0, 301);
        commit(ledger, admitted(ledger.admit("v1", "one", weighted, dir)));
        ReservationLedger reloaded = ReservationLedger.load(store, scheduler);
        assertThat(reloaded.state().placement("v1").orElseThrow().reservation()).isEqualTo(weighted);
        assertThat(reloaded.share("v1")).contains(new VolumeShare(ReservationType.RANDOM, 0, 100, 3, 0, 151));
        // Both OSDs are fully reserved now; a new weight and limit still fit, since they book nothing.
        Reservation changed = new Reservation(ReservationType.RANDOM, MIB, 0, 200, 7, 0, 1000);
        commit(reloaded, admitted(reloaded.readmit("v1", "one", changed, dir)));
        assertThat(reloaded.share("v1")).contains(new VolumeShare(ReservationType.RANDOM, 0, 100, 7, 0, 500));
        assertThat(ReservationLedger.load(store, scheduler).state().placement("v1").orElseThrow().reservation())
                .isEqualTo(changed);
    }

    // A corrupt ledger record stops the MRC naming the key instead of silently dropping a reservation.
    @Test
    void aCorruptRecordIsNamed() {
        store.put(LedgerKeys.placement("broken"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> ReservationLedger.load(store, scheduler)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("QPbroken");
    }
}
