package org.xtreemfs.foundation.qos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;

class QosWireTest {

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
}
