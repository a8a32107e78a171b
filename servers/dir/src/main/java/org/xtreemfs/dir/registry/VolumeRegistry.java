package org.xtreemfs.dir.registry;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.interfaces.dir.VolumeRegistration;

/**
 * Which MRC serves which volume, by volume name. Thread-safe (one monitor). Invariants: a name maps to
 * at most one volume id and an id to at most one name; changes are synced to disk before they are
 * acknowledged, because clients find volumes only through this registry.
 */
public final class VolumeRegistry {
    /** Longest volume name in bytes, as a POSIX file name. */
    public static final int VOLUME_NAME_BYTES_MAX = 255;

    private static final byte[] VOLUME_PREFIX = Keys.utf8("volume/");

    private final KvStore store;
    private final Map<String, VolumeRegistration> volumesByName = new TreeMap<>();
    private final Map<String, String> namesById = new HashMap<>();

    /** Loads every volume the store holds. */
    public VolumeRegistry(KvStore store) {
        this.store = store;
        try (KvIterator volumes = store.iterator(KeyRange.prefix(VOLUME_PREFIX))) {
            while (volumes.hasNext()) {
                KvEntry entry = volumes.next();
                VolumeRegistration volume = parseVolume(entry);
                volumesByName.put(volume.getVolumeName(), volume);
                namesById.put(volume.getVolumeId(), volume.getVolumeName());
            }
        }
    }

    /**
     * Registers a volume, or updates the MRC of a volume registered under the same name and id.
     * A name registered with another id, or an id registered under another name, is a conflict.
     */
    public synchronized void register(VolumeRegistration volume) throws RegistryException {
        String name = checkVolumeName(volume.getVolumeName());
        String id = ServiceRegistry.checkIdentifier("id of volume '" + name + "'", volume.getVolumeId());
        ServiceRegistry.checkIdentifier("MRC uuid of volume '" + name + "'", volume.getMrcUuid());
        VolumeRegistration existing = volumesByName.get(name);
        if (existing != null && !existing.getVolumeId().equals(id)) {
            throw RegistryException.conflict("volume '" + name + "' already exists with id '"
                    + existing.getVolumeId() + "', not '" + id + "'");
        }
        String nameOfId = namesById.get(id);
        if (nameOfId != null && !nameOfId.equals(name)) {
            throw RegistryException.conflict("volume id '" + id + "' is already registered as volume '"
                    + nameOfId + "', not '" + name + "'");
        }
        VolumeRegistration stored = VolumeRegistration.newBuilder()
                .setVolumeId(id).setVolumeName(name).setMrcUuid(volume.getMrcUuid()).build();
        store.write(new WriteBatch().put(volumeKey(name), stored.toByteArray()), Durability.SYNC);
        volumesByName.put(name, stored);
        namesById.put(id, name);
    }

    public synchronized void deregister(String name) throws RegistryException {
        VolumeRegistration existing = get(name);
        store.write(new WriteBatch().delete(volumeKey(name)), Durability.SYNC);
        volumesByName.remove(name);
        namesById.remove(existing.getVolumeId());
    }

    /** The volume's registration; NOT_FOUND names the volume when it is unknown. */
    public synchronized VolumeRegistration get(String name) throws RegistryException {
        checkVolumeName(name);
        VolumeRegistration volume = volumesByName.get(name);
        if (volume == null) {
            throw RegistryException.notFound("no volume named '" + name + "' is registered");
        }
        return volume;
    }

    /** Every volume in name order. */
    public synchronized List<VolumeRegistration> list() {
        return new ArrayList<>(volumesByName.values());
    }

    /** A volume name is a non-empty POSIX file name without control characters. */
    static String checkVolumeName(String name) throws RegistryException {
        if (name.isEmpty()) {
            throw RegistryException.invalid("volume name is empty");
        }
        if (Keys.utf8(name).length > VOLUME_NAME_BYTES_MAX) {
            throw RegistryException.invalid("volume name '" + name.substring(0, Math.min(40, name.length()))
                    + "...' is longer than " + VOLUME_NAME_BYTES_MAX + " bytes");
        }
        if (name.equals(".") || name.equals("..") || name.contains("/")) {
            throw RegistryException.invalid("volume name '" + name + "' is not a valid name (no '/', '.' or '..')");
        }
        return ServiceRegistry.checkIdentifier("volume name", name);
    }

    private static byte[] volumeKey(String name) {
        return Keys.concat(VOLUME_PREFIX, Keys.utf8(name));
    }

    private static VolumeRegistration parseVolume(KvEntry entry) {
        try {
            return VolumeRegistration.parseFrom(entry.value());
        } catch (InvalidProtocolBufferException e) {
            throw new KvException("corrupt volume record at key " + Keys.toDebugString(entry.key()), e);
        }
    }
}
