package org.xtreemfs.mrc.metadata;

import java.nio.charset.StandardCharsets;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;

/**
 * Checks a volume-create request and fills in defaults. Every rejection is INVALID_ARGS naming the
 * offending field and value. The reservation is validated for consistency with its type only; whether it
 * can be placed is the reservation scheduler's job (a later issue).
 */
public final class VolumeValidation {
    public static final int VOLUME_NAME_BYTES_MAX = 255;
    public static final int OBJECT_SIZE_BYTES_DEFAULT = 128 * 1024;
    public static final int OBJECT_SIZE_BYTES_MIN = 4096;
    public static final int OBJECT_SIZE_BYTES_MAX = 64 * 1024 * 1024;
    public static final int STRIPE_WIDTH_MAX = 128;
    public static final int VOLUME_MODE_DEFAULT = 0777;

    private VolumeValidation() {}

    public static void checkVolumeName(String name) throws RpcException {
        if (name == null || name.isEmpty()) {
            throw RpcException.invalidArguments("invalid volume name '': must not be empty");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > VOLUME_NAME_BYTES_MAX) {
            throw RpcException.invalidArguments("invalid volume name '" + PathNames.abbreviate(name)
                    + "': longer than " + VOLUME_NAME_BYTES_MAX + " bytes");
        }
        if (name.equals(".") || name.equals("..")) {
            throw RpcException.invalidArguments("invalid volume name '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\') {
                throw RpcException.invalidArguments("invalid volume name '" + name + "': contains '" + c + "'");
            }
            if (c < 0x20 || c == 0x7f) {
                throw RpcException.invalidArguments("invalid volume name '" + printable(name)
                        + "': contains control character 0x" + Integer.toHexString(c));
            }
        }
    }

    /** The striping policy with defaults for unset fields (RAID0, 128 KiB, width 1). */
    public static StripingPolicy normalizeStriping(StripingPolicy requested) throws RpcException {
        StripingPolicy.Builder policy = requested.toBuilder();
        if (requested.getType() == StripingPolicyType.STRIPING_POLICY_UNSPECIFIED) {
            policy.setType(StripingPolicyType.RAID0);
        } else if (requested.getType() != StripingPolicyType.RAID0) {
            throw RpcException.invalidArguments("unsupported striping policy type " + requested.getTypeValue());
        }
        int objectSize = requested.getObjectSizeBytes() == 0 ? OBJECT_SIZE_BYTES_DEFAULT
                : requested.getObjectSizeBytes();
        if (objectSize < OBJECT_SIZE_BYTES_MIN || objectSize > OBJECT_SIZE_BYTES_MAX
                || objectSize % OBJECT_SIZE_BYTES_MIN != 0) {
            throw RpcException.invalidArguments("invalid striping object_size_bytes " + Integer.toUnsignedString(objectSize)
                    + ": must be a multiple of 4096 between 4 KiB and 64 MiB");
        }
        int width = requested.getWidth() == 0 ? 1 : requested.getWidth();
        if (width < 1 || width > STRIPE_WIDTH_MAX) {
            throw RpcException.invalidArguments("invalid striping width " + Integer.toUnsignedString(width)
                    + ": must be between 1 and " + STRIPE_WIDTH_MAX);
        }
        return policy.setObjectSizeBytes(objectSize).setWidth(width).build();
    }

    /**
     * Throughput only for SEQUENTIAL, IOPS only for RANDOM, neither for COLD and BEST_EFFORT; a
     * reservation of a type needs its capacity and its performance figure.
     */
    public static void checkReservation(QosReservation reservation) throws RpcException {
        QosType type = reservation.getType();
        double throughput = reservation.getThroughputMibPerS();
        long iops = reservation.getIops();
        if (type == QosType.UNRECOGNIZED) {
            throw RpcException.invalidArguments("invalid reservation.type " + reservation.getTypeValue());
        }
        if (Double.isNaN(throughput) || Double.isInfinite(throughput) || throughput < 0) {
            throw RpcException.invalidArguments("invalid reservation.throughput_mib_per_s " + throughput
                    + ": must be a finite non-negative number");
        }
        if (type == QosType.QOS_TYPE_UNSPECIFIED) {
            if (throughput != 0 || iops != 0) {
                throw RpcException.invalidArguments("reservation.type is missing but throughput_mib_per_s="
                        + throughput + " or iops=" + Long.toUnsignedString(iops) + " is given");
            }
            return;
        }
        if (reservation.getCapacityBytes() == 0) {
            throw RpcException.invalidArguments("reservation.capacity_bytes is required for a " + type
                    + " reservation");
        }
        switch (type) {
            case SEQUENTIAL -> {
                if (throughput == 0) {
                    throw RpcException.invalidArguments(
                            "reservation.throughput_mib_per_s is required for a SEQUENTIAL reservation");
                }
                if (iops != 0) {
                    throw RpcException.invalidArguments("reservation.iops=" + Long.toUnsignedString(iops)
                            + " is only allowed for RANDOM reservations, not SEQUENTIAL");
                }
            }
            case RANDOM -> {
                if (iops == 0) {
                    throw RpcException.invalidArguments("reservation.iops is required for a RANDOM reservation");
                }
                if (throughput != 0) {
                    throw RpcException.invalidArguments("reservation.throughput_mib_per_s=" + throughput
                            + " is only allowed for SEQUENTIAL reservations, not RANDOM");
                }
            }
            default -> {
                if (throughput != 0) {
                    throw RpcException.invalidArguments("reservation.throughput_mib_per_s=" + throughput
                            + " is not allowed for a " + type + " reservation");
                }
                if (iops != 0) {
                    throw RpcException.invalidArguments("reservation.iops=" + Long.toUnsignedString(iops)
                            + " is not allowed for a " + type + " reservation");
                }
            }
        }
    }

    private static String printable(String name) {
        StringBuilder text = new StringBuilder();
        for (char c : name.toCharArray()) {
            text.append(c < 0x20 || c == 0x7f ? "\\x" + String.format("%02x", (int) c) : String.valueOf(c));
        }
        return PathNames.abbreviate(text.toString());
    }
}
