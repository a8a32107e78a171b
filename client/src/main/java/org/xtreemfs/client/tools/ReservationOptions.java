package org.xtreemfs.client.tools;

import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;

/**
 * The tools' --qos, --capacity, --throughput and --iops options turned into reservations. What each type
 * needs is qos.model.Reservation's rule; this class only speaks of the model's fields as the options that
 * gave them, so an error names the option and the value the user typed.
 */
final class ReservationOptions {
    private ReservationOptions() {}

    /** mkfs: the reservation of a new volume; best-effort without figures means "no reservation". */
    static QosReservation forNewVolume(String qos, String capacity, String throughput, String iops) {
        try {
            ReservationType type = Reservation.parseType(qos);
            if (type == ReservationType.BEST_EFFORT && capacity == null && throughput == null && iops == null) {
                return QosReservation.newBuilder().setType(QosWire.toWire(type)).build();
            }
            return QosWire.toWire(Reservation.parse(qos, capacity == null ? "0" : capacity, throughput, iops));
        } catch (InvalidQosValueException invalid) {
            throw optionError(invalid, "--qos " + qos, qos, capacity, throughput, iops);
        }
    }

    /** xtfsutil --set-reservation: the admitted reservation with the figures given replaced. */
    static Reservation changed(Reservation current, String capacity, String throughput, String iops) {
        String type = current.type().name();
        try {
            return Reservation.parse(type, capacity == null ? Long.toString(current.capacityBytes()) : capacity,
                    throughput != null ? throughput
                            : current.throughputBytesPerSecond() == 0 ? null : Long.toString(current.throughputBytesPerSecond()),
                    iops != null ? iops : current.iops() == 0 ? null : Long.toString(current.iops()));
        } catch (InvalidQosValueException invalid) {
            throw optionError(invalid, "a " + Describe.qosName(QosWire.toWire(current.type())) + " reservation", type,
                    capacity, throughput, iops);
        }
    }

    private static IllegalArgumentException optionError(InvalidQosValueException invalid, String context, String qos,
            String capacity, String throughput, String iops) {
        String option = "type".equals(invalid.field()) ? "--qos" : "--" + invalid.field();
        String given = switch (option) {
            case "--qos" -> qos;
            case "--capacity" -> capacity;
            case "--throughput" -> throughput;
            default -> iops;
        };
        String problem = invalid.getMessage().substring(invalid.field().length() + invalid.value().length() + 5);
        if (given == null) {
            return new IllegalArgumentException(context + " needs " + option + ": the value " + problem);
        }
        return new IllegalArgumentException(option + ": '" + given + "' " + problem);
    }
}
