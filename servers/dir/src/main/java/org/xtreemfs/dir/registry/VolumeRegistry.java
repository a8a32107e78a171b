package org.xtreemfs.dir.registry;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Which MRC serves which volume, by volume name, and which volumes were deleted. Thread-safe (one
 * monitor). Invariants: a name maps to at most one volume id and an id to at most one name; changes are
 * synced to disk before they are acknowledged, because clients find volumes only through this registry.
 * A deregistered volume's id is kept as deleted (the newest {@value #DELETED_VOLUMES_KEPT}), written in the
 * same batch as the removal: the OSDs learn the ids with their heartbeats and remove the volume's objects,
 * so a deleted id is never registered again.
 */
public final class VolumeRegistry {
    /** Longest volume name in bytes, as a POSIX file name. */
    public static final int VOLUME_NAME_BYTES_MAX = 255;

    /** Deleted volume ids kept (and sent to every OSD with each heartbeat); older ones are forgotten. */
    public static final int DELETED_VOLUMES_KEPT = 1000;

    private static final byte[] VOLUME_PREFIX = Keys.utf8("volume/");
    private static final byte[] DELETED_PREFIX = Keys.utf8("deleted-volume/");

    private final KvStore store;
    private final Map<String, VolumeRegistration> volumesByName = new TreeMap<>();
    private final Map<String, String> namesById = new HashMap<>();
    /** Deleted volume ids by their deletion's sequence number (oldest first). */
    private final TreeMap<Long, String> deletedBySequence = new TreeMap<>();
    private final Set<String> deletedIds = new HashSet<>();

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
        try (KvIterator deleted = store.iterator(KeyRange.prefix(DELETED_PREFIX))) {
            while (deleted.hasNext()) {
                KvEntry entry = deleted.next();
                String id = new String(entry.key(), DELETED_PREFIX.length, entry.key().length - DELETED_PREFIX.length,
                        StandardCharsets.UTF_8);
                deletedBySequence.put(Long.parseLong(new String(entry.value(), StandardCharsets.US_ASCII)), id);
                deletedIds.add(id);
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
        if (deletedIds.contains(id)) {
            throw RegistryException.conflict("volume id '" + id + "' belongs to a deleted volume");
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

    /** Forgets the volume and keeps its id as deleted, dropping the oldest deleted id beyond the bound. */
    public synchronized void deregister(String name) throws RegistryException {
        VolumeRegistration existing = get(name);
        String id = existing.getVolumeId();
        long sequence = deletedBySequence.isEmpty() ? 1 : deletedBySequence.lastKey() + 1;
        WriteBatch batch = new WriteBatch().delete(volumeKey(name))
                .put(deletedKey(id), Long.toString(sequence).getBytes(StandardCharsets.US_ASCII));
        String forgotten = deletedBySequence.size() >= DELETED_VOLUMES_KEPT
                ? deletedBySequence.firstEntry().getValue() : null;
        if (forgotten != null) {
            batch.delete(deletedKey(forgotten));
        }
        store.write(batch, Durability.SYNC);
        volumesByName.remove(name);
        namesById.remove(id);
        if (forgotten != null) {
            deletedBySequence.pollFirstEntry();
            deletedIds.remove(forgotten);
        }
        deletedBySequence.put(sequence, id);
        deletedIds.add(id);
    }

    /** Ids of deleted volumes, oldest first, at most {@value #DELETED_VOLUMES_KEPT}. */
    public synchronized List<String> deletedVolumeIds() {
        return new ArrayList<>(deletedBySequence.values());
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

    private static byte[] deletedKey(String volumeId) {
        return Keys.concat(DELETED_PREFIX, Keys.utf8(volumeId));
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
