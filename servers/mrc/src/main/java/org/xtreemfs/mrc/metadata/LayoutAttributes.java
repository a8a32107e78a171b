package org.xtreemfs.mrc.metadata;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * The read-only {@code xtreemfs.*} extended attributes: the layout of a file as text, for tools and
 * curious users ({@code getfattr -n xtreemfs.locations FILE}). Computed, never stored.
 */
public final class LayoutAttributes {
    public static final List<String> NAMES = List.of("xtreemfs.file_id", "xtreemfs.volume_id",
            "xtreemfs.volume_name", "xtreemfs.locations", "xtreemfs.striping_policy", "xtreemfs.truncate_epoch");

    private LayoutAttributes() {}

    public static Optional<byte[]> value(Volume volume, InodeRecord record, String name) {
        String text = switch (name) {
            case "xtreemfs.file_id" -> FileIds.fileId(volume.getId(), record.inode());
            case "xtreemfs.volume_id" -> volume.getId();
            case "xtreemfs.volume_name" -> volume.getName();
            case "xtreemfs.locations" -> record.isRegularFile() ? locationsJson(record.xlocs()) : null;
            case "xtreemfs.striping_policy" -> stripingJson(record.hasLayout()
                    ? record.xlocs().getReplicas(0).getStripingPolicy() : volume.getDefaultStripingPolicy());
            case "xtreemfs.truncate_epoch" -> record.isRegularFile()
                    ? Integer.toUnsignedString(record.stat().getTruncateEpoch()) : null;
            default -> null;
        };
        return Optional.ofNullable(text).map(value -> value.getBytes(StandardCharsets.UTF_8));
    }

    /** E.g. {"version":1,"replicas":[{"striping_policy":{...},"osds":["uuid-a","uuid-b"]}]}. */
    public static String locationsJson(XLocSet xlocs) {
        String replicas = xlocs.getReplicasList().stream().map(LayoutAttributes::replicaJson)
                .collect(Collectors.joining(","));
        return "{\"version\":" + xlocs.getVersion() + ",\"replicas\":[" + replicas + "]}";
    }

    private static String replicaJson(Replica replica) {
        String osds = replica.getOsdUuidsList().stream().map(uuid -> "\"" + escape(uuid) + "\"")
                .collect(Collectors.joining(","));
        return "{\"striping_policy\":" + stripingJson(replica.getStripingPolicy()) + ",\"osds\":[" + osds + "]}";
    }

    static String stripingJson(StripingPolicy policy) {
        return "{\"type\":\"" + policy.getType().name() + "\",\"object_size_bytes\":"
                + Integer.toUnsignedString(policy.getObjectSizeBytes()) + ",\"width\":"
                + Integer.toUnsignedString(policy.getWidth()) + "}";
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
