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
 * The reservation figures --capacity, --throughput and --iops and how the volume shares an OSD beyond them,
 * --weight and --limit (a picocli mixin of mkfs and xtfsutil), turned into reservations. What each type needs
 * and which weights and limits are valid is qos.model.Reservation's rule; this class only speaks of the model's
 * fields as the options that gave them, so an error names the option and the value typed.
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

    @Option(names = "--weight", paramLabel = "N",
            description = "Share of what the reservations leave on an OSD, relative to the other volumes there: an"
                    + " integer 1.." + Reservation.WEIGHT_MAX + " (default 1). Needs a reservation (a best-effort"
                    + " volume: --capacity).")
    String weight;

    @Option(names = "--limit", paramLabel = "RATE",
            description = "Upper bound on the volume's rate even when the disks are idle, at least the reservation:"
                    + " IOPS for random (e.g. 3000), bytes/s otherwise (e.g. 200MiB/s); 0 for none (default)."
                    + " Divided over the stripe width like the reservation.")
    String limit;

    static ReservationOptions of(String capacity, String throughput, String iops) {
        return of(capacity, throughput, iops, null, null);
    }

    static ReservationOptions of(String capacity, String throughput, String iops, String weight, String limit) {
        ReservationOptions options = new ReservationOptions();
        options.capacity = capacity;
        options.throughput = throughput;
        options.iops = iops;
        options.weight = weight;
        options.limit = limit;
        return options;
    }

    /** The first figure given, as "--option 'value'", or null when none is. */
    String firstGiven() {
        return capacity != null ? "--capacity: '" + capacity + "'" : throughput != null
                ? "--throughput: '" + throughput + "'" : iops != null ? "--iops: '" + iops + "'"
                : weight != null ? "--weight: '" + weight + "'" : limit != null ? "--limit: '" + limit + "'" : null;
    }

    /** mkfs: the reservation of a new volume; best-effort without figures means "no reservation". */
    QosReservation forNewVolume(String qos) {
        try {
            ReservationType type = Reservation.parseType(qos);
            if (type == ReservationType.BEST_EFFORT && capacity == null) {
                if (throughput == null && iops == null && weight == null && limit == null) {
                    return QosReservation.newBuilder().setType(QosWire.toWire(type)).build();
                }
                if (weight != null || limit != null) {
                    // Without capacity a best-effort volume has no reservation, so no ledger entry to keep them in.
                    throw new IllegalArgumentException((weight != null ? "--weight: '" + weight + "'"
                            : "--limit: '" + limit + "'") + " needs --capacity on a best-effort volume: only a"
                            + " volume with a reservation keeps a weight or a limit");
                }
            }
            return QosWire.toWire(Reservation.parse(qos, capacity == null ? "0" : capacity, throughput, iops, weight,
                    limit));
        } catch (InvalidQosValueException invalid) {
            throw optionError(invalid, "--qos " + qos, qos);
        }
    }

    /**
     * Refuses a figure that is not a valid amount on its own (a bad unit, a negative number, a weight out of
     * range), naming the option and the value, before any server is asked: a bad value is a usage error whatever
     * the volume is. A limit is checked as a rate or a count, since its unit depends on the volume's type.
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
            if (weight != null) {
                Reservation.parseWeight(weight);
            }
            if (limit != null) {
                try {
                    Reservation.parseLimit(ReservationType.RANDOM, limit);
                } catch (InvalidQosValueException notACount) {
                    Reservation.parseLimit(ReservationType.SEQUENTIAL, limit);
                }
            }
        } catch (InvalidQosValueException invalid) {
            throw optionError(invalid, "the figures given", null);
        }
    }

    /**
     * xtfsutil --set-reservation: the admitted reservation with the figures given replaced; the weight and the
     * limit not given stay as they are ("--limit 0" removes the limit).
     */
    Reservation changed(Reservation current) {
        String type = current.type().name();
        Dimension limitDimension = Reservation.limitDimension(current.type());
        try {
            return Reservation.parse(type, capacity == null ? Long.toString(current.capacityBytes()) : capacity,
                    throughput != null ? throughput
                            : current.throughputBytesPerSecond() == 0 ? null : Long.toString(current.throughputBytesPerSecond()),
                    iops != null ? iops : current.iops() == 0 ? null : Long.toString(current.iops()),
                    weight != null ? weight : Long.toString(current.weight()),
                    limit != null ? limit : Long.toString(limitDimension.of(current.limit())));
        } catch (InvalidQosValueException invalid) {
            if ("limit".equals(invalid.field()) && limit == null) {
                // The kept limit no longer fits the new figures: the user did not type it, so say whose it is.
                throw new IllegalArgumentException("the volume's limit " + problemOf(invalid)
                        + "; give --limit as well (0 removes it)");
            }
            throw optionError(invalid, "a " + Describe.qosName(QosWire.toWire(current.type())) + " reservation", type);
        }
    }

    private IllegalArgumentException optionError(InvalidQosValueException invalid, String context, String qos) {
        String option = "type".equals(invalid.field()) ? "--qos" : "--" + invalid.field();
        String given = switch (option) {
            case "--qos" -> qos;
            case "--capacity" -> capacity;
            case "--throughput" -> throughput;
            case "--weight" -> weight;
            case "--limit" -> limit;
            default -> iops;
        };
        if (given == null) {
            return new IllegalArgumentException(context + " needs " + option + ": the value "
                    + problemOf(invalid).substring(invalid.value().length() + 3));
        }
        return new IllegalArgumentException(option + ": '" + given + "' "
                + problemOf(invalid).substring(invalid.value().length() + 3));
    }

    /** The model's message without the field name: "\"value\" problem". */
    private static String problemOf(InvalidQosValueException invalid) {
        return invalid.getMessage().substring(invalid.field().length() + 2);
    }
}
