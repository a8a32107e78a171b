package org.xtreemfs.integration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.osd.storage.ObjectStore;

/** Helpers shared by the integration tests: volume creation and looking at an OSD's stored objects. */
final class Volumes {
    static final int OBJECT_SIZE_BYTES = 128 * 1024;

    private Volumes() {}

    /** Creates a volume striped RAID0 over {@code width} OSDs with 128 KiB objects, mode 0777. */
    static Volume create(Client client, String name, int width) throws XtreemFSException {
        return client.createVolume(Volume.newBuilder().setName(name).setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT_SIZE_BYTES).setWidth(width))
                .build());
    }

    /** The object files an OSD stores for a file, by object number, with their bytes (empty when none). */
    static java.util.Map<Long, byte[]> storedObjectBytes(Path osdDataFolder, String fileId) throws IOException {
        Path folder;
        try (ObjectStore layout = new ObjectStore(osdDataFolder, new InMemoryKvStore())) {
            folder = layout.fileFolder(fileId);
        }
        java.util.Map<Long, byte[]> objects = new java.util.TreeMap<>();
        if (!Files.isDirectory(folder)) {
            return objects;
        }
        try (Stream<Path> files = Files.list(folder)) {
            for (Path path : files.filter(file -> file.getFileName().toString().matches("[0-9]+")).toList()) {
                objects.put(Long.parseLong(path.getFileName().toString()), Files.readAllBytes(path));
            }
        }
        return objects;
    }

    /** How many object files an OSD stores for a file (0 when the file's folder is gone). */
    static long storedObjects(Path osdDataFolder, String fileId) throws IOException {
        // Only the folder layout is needed; an in-memory metadata store avoids the running OSD's RocksDB lock.
        Path folder;
        try (ObjectStore layout = new ObjectStore(osdDataFolder, new InMemoryKvStore())) {
            folder = layout.fileFolder(fileId);
        }
        if (!Files.isDirectory(folder)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(path -> path.getFileName().toString().matches("[0-9]+")).count();
        }
    }
}
