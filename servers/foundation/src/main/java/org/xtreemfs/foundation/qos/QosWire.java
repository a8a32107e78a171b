package org.xtreemfs.foundation.qos;

import java.util.Arrays;
import java.util.Optional;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Converts reservations, OSD usage types, device classes and OSD profiles between protobuf and qos.model.
 * Decoding validates through the model's constructors, so a wire value the model refuses raises the
 * model's {@link InvalidQosValueException}, whose message names the field and the value. The same holds for
 * the reservation share an XCap carries ({@link VolumeShare}, which holds the share's rules): this class is its
 * only codec, used by the MRC to fill capabilities and by the OSD to read them. Enum constants map
 * by name (the wire prefixes OSD usage types with {@code OSD_}); a test checks that every constant of each
 * side has its counterpart.
 */
public final class QosWire {
    private static final String USAGE_TYPE_PREFIX = "OSD_";

    private QosWire() {}

    /**
     * The reservation a wire message asks for; empty for "no reservation" (type unspecified, or best-effort
     * without any figure: performance as available, nothing booked). A weight of 0 (the field absent) is the
     * default weight; a best-effort volume with a weight or limit needs a capacity, because only a volume with
     * a reservation has a ledger entry to keep them in (the model refuses capacity 0, naming it).
     */
    public static Optional<Reservation> reservation(QosReservation wire) {
        boolean anyFigure = wire.getCapacityBytes() != 0 || wire.getThroughputBytesPerSecond() != 0
                || wire.getIops() != 0 || wire.getWeight() != 0 || wire.getLimitThroughputBytesPerSecond() != 0
                || wire.getLimitIops() != 0;
        if (wire.getType() == QosType.QOS_TYPE_UNSPECIFIED) {
            if (anyFigure) {
                throw new InvalidQosValueException("type", "unspecified",
                        "is required when capacity, throughput, IOPS, weight or limit is given");
            }
            return Optional.empty();
        }
        ReservationType type = reservationType(wire.getType());
        if (type == ReservationType.BEST_EFFORT && !anyFigure) {
            return Optional.empty();
        }
        return Optional.of(new Reservation(type, wire.getCapacityBytes(), wire.getThroughputBytesPerSecond(),
                wire.getIops(), weight(wire.getWeight()), wire.getLimitThroughputBytesPerSecond(), wire.getLimitIops()));
    }

    public static QosReservation toWire(Reservation reservation) {
        return QosReservation.newBuilder().setType(toWire(reservation.type()))
                .setCapacityBytes(reservation.capacityBytes())
                .setThroughputBytesPerSecond(reservation.throughputBytesPerSecond())
                .setIops(reservation.iops()).setWeight(toWireWeight(reservation.weight()))
                .setLimitThroughputBytesPerSecond(reservation.limitThroughputBytesPerSecond())
                .setLimitIops(reservation.limitIops()).build();
    }

    /**
     * The wire's weight as the model's: 0 is what an absent field reads as (an older sender), so it means the
     * default weight. A uint64 above Long.MAX_VALUE reads negative here and is refused by the model.
     */
    private static long weight(long wireWeight) {
        return wireWeight == 0 ? Reservation.WEIGHT_DEFAULT : wireWeight;
    }

    /** The default weight is not sent (the field stays absent), so a default volume's messages stay as before. */
    private static long toWireWeight(long weight) {
        return weight == Reservation.WEIGHT_DEFAULT ? 0 : weight;
    }

    public static ReservationType reservationType(QosType wire) {
        if (wire == QosType.QOS_TYPE_UNSPECIFIED || wire == QosType.UNRECOGNIZED) {
            throw new InvalidQosValueException("type", wire == QosType.UNRECOGNIZED ? "unknown" : "unspecified",
                    "is not a reservation type; use one of " + Arrays.toString(ReservationType.values()));
        }
        return ReservationType.valueOf(wire.name());
    }

    public static QosType toWire(ReservationType type) {
        return QosType.valueOf(type.name());
    }

    /** An OSD that declares no usage type serves best-effort volumes, as the wire documents. */
    public static OsdUsageType usageType(org.xtreemfs.interfaces.common.OsdUsageType wire) {
        if (wire == org.xtreemfs.interfaces.common.OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED) {
            return OsdUsageType.BEST_EFFORT;
        }
        if (wire == org.xtreemfs.interfaces.common.OsdUsageType.UNRECOGNIZED) {
            throw new InvalidQosValueException("usage_type", "unknown", "is not an OSD usage type");
        }
        return OsdUsageType.valueOf(wire.name().substring(USAGE_TYPE_PREFIX.length()));
    }

    public static org.xtreemfs.interfaces.common.OsdUsageType toWire(OsdUsageType usageType) {
        return org.xtreemfs.interfaces.common.OsdUsageType.valueOf(USAGE_TYPE_PREFIX + usageType.name());
    }

    public static DeviceClass deviceClass(org.xtreemfs.interfaces.common.DeviceClass wire) {
        if (wire == org.xtreemfs.interfaces.common.DeviceClass.DEVICE_CLASS_UNSPECIFIED
                || wire == org.xtreemfs.interfaces.common.DeviceClass.UNRECOGNIZED) {
            throw new InvalidQosValueException("device_class", wire.name(), "is not a device class; use HDD or SSD");
        }
        return DeviceClass.valueOf(wire.name());
    }

    public static org.xtreemfs.interfaces.common.DeviceClass toWire(DeviceClass deviceClass) {
        return org.xtreemfs.interfaces.common.DeviceClass.valueOf(deviceClass.name());
    }

    /** The model part of a wire profile; {@code source} and {@code measured_ms} are the sender's bookkeeping. */
    public static OsdProfile profile(org.xtreemfs.interfaces.common.OsdProfile wire) {
        long[] curve = wire.getSequentialBytesPerSecondList().stream().mapToLong(Long::longValue).toArray();
        return new OsdProfile(usageType(wire.getUsageType()), deviceClass(wire.getDeviceClass()),
                wire.getCapacityBytes(), new ThroughputCurve(curve, wire.getSequentialFloorBytesPerSecond()),
                wire.getRandomIops());
    }

    /** The wire form of a profile, without source and measurement time (the caller adds them). */
    public static org.xtreemfs.interfaces.common.OsdProfile.Builder toWire(OsdProfile profile) {
        org.xtreemfs.interfaces.common.OsdProfile.Builder wire = org.xtreemfs.interfaces.common.OsdProfile.newBuilder()
                .setUsageType(toWire(profile.usageType())).setDeviceClass(toWire(profile.deviceClass()))
                .setCapacityBytes(profile.capacityBytes())
                .setSequentialFloorBytesPerSecond(profile.sequentialThroughput().floorBytesPerSecond())
                .setRandomIops(profile.randomIops());
        for (long bytesPerSecond : profile.sequentialThroughput().measuredBytesPerSecond()) {
            wire.addSequentialBytesPerSecond(bytesPerSecond);
        }
        return wire;
    }

    /** The wire form of a share, for {@link XCap.Builder#setQosShare}. */
    public static QosShare toWire(VolumeShare share) {
        return QosShare.newBuilder().setType(toWire(share.type()))
                .setThroughputBytesPerSecond(share.throughputBytesPerSecond()).setIops(share.iops())
                .setWeight(toWireWeight(share.weight())).setLimitThroughputBytesPerSecond(share.limitThroughputBytesPerSecond())
                .setLimitIops(share.limitIops()).build();
    }

    /**
     * The share a capability carries; empty when the XCap has none (the volume has no reservation, or the
     * XCap was issued by an MRC that does not fill the field), which the OSD serves as best-effort. A share
     * with an unspecified or unknown type but rates, or rates that do not match its type ({@link VolumeShare}'s
     * rules), raises {@link InvalidQosValueException} naming {@code qos_share.<field>} and the value; the caller
     * decides what that means (the OSD serves the volume as best-effort).
     */
    public static Optional<VolumeShare> share(XCap capability) {
        return capability.hasQosShare() ? share(capability.getQosShare()) : Optional.empty();
    }

    /**
     * As {@link #share(XCap)}; a message whose type is unspecified and carries no figure means "no share". Weight
     * 0 (absent, from an MRC that does not send it) means 1, limits 0 mean none.
     */
    public static Optional<VolumeShare> share(QosShare wire) {
        if (wire.getType() == QosType.QOS_TYPE_UNSPECIFIED && wire.getThroughputBytesPerSecond() == 0
                && wire.getIops() == 0 && wire.getWeight() == 0 && wire.getLimitThroughputBytesPerSecond() == 0
                && wire.getLimitIops() == 0) {
            return Optional.empty();
        }
        ReservationType type;
        try {
            type = reservationType(wire.getType());
        } catch (InvalidQosValueException unknownType) {
            throw new InvalidQosValueException(VolumeShare.FIELD_PREFIX + "type", wire.getType().name(),
                    "is not a reservation type; use one of " + Arrays.toString(ReservationType.values()));
        }
        return Optional.of(new VolumeShare(type, wire.getThroughputBytesPerSecond(), wire.getIops(),
                weight(wire.getWeight()), wire.getLimitThroughputBytesPerSecond(), wire.getLimitIops()));
    }
}
