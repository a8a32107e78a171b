package org.xtreemfs.mrc.metadata;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.Reservation;

/**
 * Checks a volume-create request and fills in defaults. Every rejection is INVALID_ARGS naming the
 * offending field and value. The reservation is validated for consistency with its type only; whether it
 * can be placed is the reservation scheduler's job.
 */
public final class VolumeValidation {
    public static final int VOLUME_NAME_BYTES_MAX = 255;
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

    /**
     * The striping policy with defaults for unset fields (RAID0, width 1, and the object size
     * {@link StripingRules#defaultObjectSizeBytes}: 1 MiB, or 128 KiB for a volume with a reservation or with
     * replicas); the limits are {@link StripingRules}'.
     */
    public static StripingPolicy normalizeStriping(StripingPolicy requested, boolean reserved, boolean replicated)
            throws RpcException {
        StripingPolicy.Builder policy = requested.toBuilder();
        if (requested.getType() == StripingPolicyType.STRIPING_POLICY_UNSPECIFIED) {
            policy.setType(StripingPolicyType.RAID0);
        } else if (requested.getType() != StripingPolicyType.RAID0) {
            throw RpcException.invalidArguments("unsupported striping policy type " + requested.getTypeValue());
        }
        long objectSize = requested.getObjectSizeBytes() == 0
                ? StripingRules.defaultObjectSizeBytes(reserved, replicated)
                : Integer.toUnsignedLong(requested.getObjectSizeBytes());
        long width = requested.getWidth() == 0 ? 1 : Integer.toUnsignedLong(requested.getWidth());
        Optional<String> objectSizeProblem = StripingRules.objectSizeProblem(objectSize);
        if (objectSizeProblem.isPresent()) {
            throw RpcException.invalidArguments("invalid striping object_size_bytes " + objectSize + ": "
                    + objectSizeProblem.get());
        }
        Optional<String> widthProblem = StripingRules.stripeWidthProblem(width);
        if (widthProblem.isPresent()) {
            throw RpcException.invalidArguments("invalid striping width " + width + ": " + widthProblem.get());
        }
        return policy.setObjectSizeBytes((int) objectSize).setWidth((int) width).build();
    }

    /**
     * The replication policy with its defaults (one copy, pattern read routing) filled in; the limits are
     * {@link ReplicationRules}'.
     */
    public static ReplicationPolicy normalizeReplication(ReplicationPolicy requested) throws RpcException {
        long replicas = requested.getReplicas() == 0 ? 1 : Integer.toUnsignedLong(requested.getReplicas());
        Optional<String> problem = ReplicationRules.replicasProblem(replicas);
        if (problem.isPresent()) {
            throw RpcException.invalidArguments("invalid replication replicas " + replicas + ": " + problem.get());
        }
        if (requested.getReadRouting() == org.xtreemfs.interfaces.common.ReadRouting.UNRECOGNIZED) {
            throw RpcException.invalidArguments("invalid replication read routing " + requested.getReadRoutingValue()
                    + ": not a ReadRouting value");
        }
        return requested.toBuilder().setReplicas((int) replicas)
                .setReadRouting(ReplicationRules.readRouting(requested)).build();
    }

    /**
     * The reservation a volume-create request asks for, validated by qos.model (the one authority on what
     * each type needs); empty when the volume has none.
     */
    public static Optional<Reservation> checkReservation(QosReservation reservation) throws RpcException {
        try {
            return QosWire.reservation(reservation);
        } catch (InvalidQosValueException invalid) {
            throw RpcException.invalidArguments("invalid reservation: " + invalid.getMessage());
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
