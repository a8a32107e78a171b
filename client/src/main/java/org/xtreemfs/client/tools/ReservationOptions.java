package org.xtreemfs.client.tools;

import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.Units;
import picocli.CommandLine.Option;

/**
 * The reservation figures --capacity, --throughput and --iops (a picocli mixin of mkfs and xtfsutil),
 * turned into reservations. What each type needs is qos.model.Reservation's rule; this class only speaks of
 * the model's fields as the options that gave them, so an error names the option and the value typed.
 */
final class ReservationOptions {
    @Option(names = "--capacity", paramLabel = "SIZE", description = "Reserved capacity, e.g. 200GiB.")
    String capacity;

    @Option(names = "--throughput", paramLabel = "RATE",
            description = "Reserved sequential throughput, e.g. 150MiB/s (sequential only).")
    String throughput;

    @Option(names = "--iops", paramLabel = "N",
            description = "Reserved random 4 KiB operations per second, e.g. 2000 (random only).")
    String iops;

    static ReservationOptions of(String capacity, String throughput, String iops) {
        ReservationOptions options = new ReservationOptions();
        options.capacity = capacity;
        options.throughput = throughput;
        options.iops = iops;
        return options;
    }

    /** The first figure given, as "--option 'value'", or null when none is. */
    String firstGiven() {
        return capacity != null ? "--capacity: '" + capacity + "'" : throughput != null
                ? "--throughput: '" + throughput + "'" : iops != null ? "--iops: '" + iops + "'" : null;
    }

    /** mkfs: the reservation of a new volume; best-effort without figures means "no reservation". */
    QosReservation forNewVolume(String qos) {
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

    /**
     * Refuses a figure that is not a valid amount on its own (a bad unit, a negative number), naming the option
     * and the value, before any server is asked: a bad value is a usage error whatever the volume is.
     */
    void checkGivenFigures() {
        try {
            if (capacity != null) {
                Units.parseBytes(Dimension.CAPACITY.fieldName(), capacity);
            }
            if (throughput != null) {
                Units.parseBytesPerSecond(Dimension.THROUGHPUT.fieldName(), throughput);
            }
            if (iops != null) {
                Units.parseIops(Dimension.IOPS.fieldName(), iops);
            }
        } catch (InvalidQosValueException invalid) {
            throw optionError(invalid, "the figures given", null, capacity, throughput, iops);
        }
    }

    /** xtfsutil --set-reservation: the admitted reservation with the figures given replaced. */
    Reservation changed(Reservation current) {
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
