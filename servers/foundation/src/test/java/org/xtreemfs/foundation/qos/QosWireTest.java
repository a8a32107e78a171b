package org.xtreemfs.foundation.qos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.scheduler.Placement;

class QosWireTest {

    /** The share the MRC puts into the XCaps of a placed volume (as ReservationLedger.share does). */
    private static VolumeShare shareOf(Placement placement) {
        return placement.share();
    }

    // Exact units survive the wire: a throughput that is no whole number of MiB/s comes back to the byte.
    @Test
    void reservationsRoundTripExactly() {
        for (Reservation reservation : new Reservation[] {Reservation.sequential((200L << 30) + 1, 150L * (1 << 20) + 7),
                Reservation.random(50L << 30, 2001), Reservation.cold(1), Reservation.bestEffort(3L << 40)}) {
            assertThat(QosWire.reservation(QosWire.toWire(reservation))).contains(reservation);
        }
    }

    // "No reservation" has two spellings on the wire, and both decode to none.
    @Test
    void unspecifiedAndCapacitylessBestEffortMeanNoReservation() {
        assertThat(QosWire.reservation(QosReservation.getDefaultInstance())).isEqualTo(Optional.empty());
        assertThat(QosWire.reservation(QosReservation.newBuilder().setType(QosType.BEST_EFFORT).build())).isEmpty();
    }

    // The model's rules apply to wire input: a figure of the wrong type is refused naming field and value.
    @Test
    void decodingValidatesThroughTheModel() {
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setType(QosType.RANDOM)
                .setCapacityBytes(1 << 20).setIops(10).setThroughputBytesPerSecond(5).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("throughput: \"5B/s\"");
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setType(QosType.SEQUENTIAL)
                .setCapacityBytes(1 << 20).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageContaining("throughput");
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setCapacityBytes(1).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("type:");
        // uint64 values above Long.MAX_VALUE arrive negative and are refused, not wrapped
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setType(QosType.COLD)
                .setCapacityBytes(-1L).build())).isInstanceOf(InvalidQosValueException.class);
    }

    // Every enum constant of either side has its counterpart, so adding one on one side alone fails here.
    @Test
    void enumsMapOneToOne() {
        for (ReservationType type : ReservationType.values()) {
            assertThat(QosWire.reservationType(QosWire.toWire(type))).isEqualTo(type);
        }
        for (QosType wire : QosType.values()) {
            if (wire != QosType.QOS_TYPE_UNSPECIFIED && wire != QosType.UNRECOGNIZED) {
                assertThat(QosWire.toWire(QosWire.reservationType(wire))).isEqualTo(wire);
            }
        }
        for (OsdUsageType usageType : OsdUsageType.values()) {
            assertThat(QosWire.usageType(QosWire.toWire(usageType))).isEqualTo(usageType);
        }
        for (org.xtreemfs.interfaces.common.OsdUsageType wire : org.xtreemfs.interfaces.common.OsdUsageType.values()) {
            if (wire != org.xtreemfs.interfaces.common.OsdUsageType.UNRECOGNIZED
                    && wire != org.xtreemfs.interfaces.common.OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED) {
                assertThat(QosWire.toWire(QosWire.usageType(wire))).isEqualTo(wire);
            }
        }
        assertThat(QosWire.usageType(org.xtreemfs.interfaces.common.OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED))
                .isEqualTo(OsdUsageType.BEST_EFFORT);
        for (DeviceClass deviceClass : DeviceClass.values()) {
            assertThat(QosWire.deviceClass(QosWire.toWire(deviceClass))).isEqualTo(deviceClass);
        }
    }

    // A profile's curve, floor, capacity and IOPS come back equal.
    @Test
    void profilesRoundTrip() {
        OsdProfile builtIn = OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL);
        assertThat(QosWire.profile(QosWire.toWire(builtIn).build())).isEqualTo(builtIn);
        OsdProfile custom = new OsdProfile(OsdUsageType.RANDOM, DeviceClass.SSD, 12345,
                new ThroughputCurve(new long[] {300, 200, 100}, 50), 777);
        assertThat(QosWire.profile(QosWire.toWire(custom).build())).isEqualTo(custom);
    }

    // A sequential share is the placement's per-OSD throughput (rounded up), without capacity or IOPS.
    @Test
    void sequentialShareIsThePlacementsPerOsdThroughput() {
        Placement placement = new Placement("v1", Reservation.sequential(3L << 30, 100_000_001L),
                List.of("osd-a", "osd-b", "osd-c"));
        VolumeShare share = shareOf(placement);
        assertThat(share).isEqualTo(new VolumeShare(ReservationType.SEQUENTIAL, 33_333_334L, 0));
        assertThat(share.throughputBytesPerSecond()).isEqualTo(placement.sharePerOsd().throughputBytesPerSecond());
        QosShare wire = QosWire.toWire(share);
        assertThat(wire.getType()).isEqualTo(QosType.SEQUENTIAL);
        assertThat(wire.getThroughputBytesPerSecond()).isEqualTo(33_333_334L);
        assertThat(wire.getIops()).isZero();
        assertThat(QosWire.share(XCap.newBuilder().setQosShare(wire).build())).contains(share);
    }

    @Test
    void randomShareIsThePlacementsPerOsdIops() {
        VolumeShare share = shareOf(new Placement("v2", Reservation.random(1L << 30, 2001), List.of("a", "b")));
        assertThat(share).isEqualTo(new VolumeShare(ReservationType.RANDOM, 0, 1001));
        assertThat(QosWire.share(QosWire.toWire(share))).contains(share);
    }

    // Cold and best-effort reservations have no rate to guarantee: the share names the type only.
    @Test
    void coldAndBestEffortSharesCarryTheTypeOnly() {
        for (Reservation reservation : List.of(Reservation.cold(1L << 40), Reservation.bestEffort(1L << 40))) {
            VolumeShare share = shareOf(new Placement("v3", reservation, List.of("a")));
            assertThat(share).isEqualTo(new VolumeShare(reservation.type(), 0, 0));
            QosShare wire = QosWire.toWire(share);
            assertThat(wire.getThroughputBytesPerSecond()).isZero();
            assertThat(wire.getIops()).isZero();
            assertThat(QosWire.share(wire)).contains(share);
        }
    }

    // No reservation: the XCap carries no share (absent field), and an empty message also means none.
    @Test
    void absentShareMeansNoReservation() {
        assertThat(QosWire.share(XCap.getDefaultInstance())).isEmpty();
        assertThat(QosWire.share(XCap.newBuilder().setQosShare(QosShare.getDefaultInstance()).build())).isEmpty();
    }

    // A share whose rates do not fit its type is refused with the field and the value, never guessed.
    @Test
    void malformedSharesAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setType(QosType.SEQUENTIAL).build()))
                .isInstanceOf(InvalidQosValueException.class)
                .hasMessageStartingWith("qos_share.throughput: \"0B/s\"");
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setType(QosType.COLD).setIops(5).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("qos_share.iops:");
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setIops(5).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("qos_share.type:");
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setType(QosType.RANDOM).setIops(-1L).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("qos_share.iops:");
    }

    // Weight and limit survive the wire in both messages; the default weight is not sent, and absent means 1.
    @Test
    void weightsAndLimitsRoundTripAndAbsentMeansWeightOneAndNoLimit() {
        List<Reservation> reservations = List.of(
                new Reservation(ReservationType.SEQUENTIAL, 1L << 30, 100_000_001L, 0, 7, 150_000_003L, 0),
                new Reservation(ReservationType.RANDOM, 1L << 30, 0, 333, 1000, 0, 333),
                new Reservation(ReservationType.BEST_EFFORT, 1L << 30, 0, 0, 3, 20L << 20, 0),
                new Reservation(ReservationType.COLD, 1L << 30, 0, 0, 2, 0, 0));
        for (Reservation reservation : reservations) {
            assertThat(QosWire.reservation(QosWire.toWire(reservation))).contains(reservation);
            VolumeShare share = new Placement("v", reservation, List.of("a", "b")).share();
            assertThat(share.weight()).isEqualTo(reservation.weight());
            assertThat(QosWire.share(XCap.newBuilder().setQosShare(QosWire.toWire(share)).build())).contains(share);
        }
        assertThat(QosWire.toWire(Reservation.sequential(1, 1)).getWeight()).isZero();
        assertThat(QosWire.toWire(VolumeShare.sequential(1)).getWeight()).isZero();
        assertThat(QosWire.reservation(QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(1)
                .setThroughputBytesPerSecond(5).build()).orElseThrow().weight()).isEqualTo(1);
        assertThat(QosWire.share(QosShare.newBuilder().setType(QosType.RANDOM).setIops(5).build()).orElseThrow())
                .isEqualTo(new VolumeShare(ReservationType.RANDOM, 0, 5, 1, 0, 0));
    }

    // A weight or limit is a figure: without a type, or on best-effort without capacity, it is refused, not lost.
    @Test
    void weightsAndLimitsWithoutAReservationToKeepThemAreRefusedNamingTheField() {
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setWeight(3).build()))
                .isInstanceOf(InvalidQosValueException.class).hasMessageStartingWith("type: \"unspecified\"");
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setType(QosType.BEST_EFFORT)
                .setWeight(3).build())).isInstanceOf(InvalidQosValueException.class)
                .hasMessageStartingWith("capacity: ");
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setType(QosType.SEQUENTIAL)
                .setThroughputBytesPerSecond(100).setLimitThroughputBytesPerSecond(50).build()))
                .isInstanceOf(InvalidQosValueException.class)
                .hasMessageStartingWith("qos_share.limit: \"50B/s\" is below");
        assertThatThrownBy(() -> QosWire.share(QosShare.newBuilder().setType(QosType.BEST_EFFORT).setWeight(5000)
                .build())).hasMessageStartingWith("qos_share.weight: \"5000\"");
        assertThatThrownBy(() -> QosWire.reservation(QosReservation.newBuilder().setType(QosType.BEST_EFFORT)
                .setCapacityBytes(1).setWeight(-1L).build())).hasMessageStartingWith("weight: \"-1\"");
    }
}
