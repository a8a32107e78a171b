package org.xtreemfs.osd.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The log-structured layout's index: for each (file, object) the object's stored length and its extents, each a
 * byte range of the object and the log address of its first byte. Pure and not thread-safe (the store guards it).
 *
 * <p>Invariants: one object's extents never overlap and all end within its stored length (bytes of the stored
 * length that no extent covers are holes and read as zeros); a newer write replaces exactly the bytes it covers
 * (older extents are cut or split around it). Every change reports the bytes it made dead, so the store can count
 * each log segment's live bytes for compaction.
 */
final class LogIndex {
    /** A byte range [offsetInObject, offsetInObject + lengthBytes) of an object stored from log {@code address}. */
    record Extent(int offsetInObject, int lengthBytes, long address) {
        int endInObject() {
            return offsetInObject + lengthBytes;
        }
    }

    /** One object: its stored length and its extents by offset. */
    static final class ObjectEntry {
        long lengthBytes;
        final TreeMap<Integer, Extent> extents = new TreeMap<>();

        List<Extent> extents() {
            return List.copyOf(extents.values());
        }
    }

    /** Receives the extents (or parts of them) a change made dead. */
    interface DeadBytes {
        void dead(long address, long lengthBytes);
    }

    private final Map<String, TreeMap<Long, ObjectEntry>> files = new HashMap<>();

    /** The object's entry, or null when nothing of it is stored. */
    ObjectEntry object(String fileId, long objectNumber) {
        TreeMap<Long, ObjectEntry> objects = files.get(fileId);
        return objects == null ? null : objects.get(objectNumber);
    }

    /** The file's objects by number (empty when none); a view, not to be changed. */
    NavigableMap<Long, ObjectEntry> objects(String fileId) {
        TreeMap<Long, ObjectEntry> objects = files.get(fileId);
        return objects == null ? new TreeMap<>() : objects;
    }

    Set<String> fileIds() {
        return files.keySet();
    }

    /** Records that [offset, offset + length) of the object now lies at {@code address}; reports what it replaced. */
    void put(String fileId, long objectNumber, int offset, int length, long address, DeadBytes dead) {
        ObjectEntry entry = files.computeIfAbsent(fileId, id -> new TreeMap<>())
                .computeIfAbsent(objectNumber, number -> new ObjectEntry());
        if (length == 0) {
            return;
        }
        cut(entry, offset, offset + length, dead);
        entry.extents.put(offset, new Extent(offset, length, address));
        entry.lengthBytes = Math.max(entry.lengthBytes, (long) offset + length);
    }

    /**
     * Moves the extent that starts at {@code offset} to {@code newAddress} (compaction copied it) if it still lies
     * at {@code oldAddress}; returns whether it did.
     */
    boolean move(String fileId, long objectNumber, int offset, long oldAddress, long newAddress) {
        ObjectEntry entry = object(fileId, objectNumber);
        Extent extent = entry == null ? null : entry.extents.get(offset);
        if (extent == null || extent.address() != oldAddress) {
            return false;
        }
        entry.extents.put(offset, new Extent(offset, extent.lengthBytes(), newAddress));
        return true;
    }

    /**
     * Sets the object's stored length: bytes beyond it are dropped (dead), a longer length adds a hole. An object
     * that did not exist is created (a truncate that extends it).
     */
    void setLength(String fileId, long objectNumber, long lengthBytes, DeadBytes dead) {
        ObjectEntry entry = files.computeIfAbsent(fileId, id -> new TreeMap<>())
                .computeIfAbsent(objectNumber, number -> new ObjectEntry());
        if (lengthBytes < entry.lengthBytes) {
            cut(entry, (int) Math.min(Integer.MAX_VALUE, lengthBytes), Integer.MAX_VALUE, dead);
        }
        entry.lengthBytes = lengthBytes;
    }

    /** Forgets the object; its extents become dead. */
    void removeObject(String fileId, long objectNumber, DeadBytes dead) {
        TreeMap<Long, ObjectEntry> objects = files.get(fileId);
        ObjectEntry entry = objects == null ? null : objects.remove(objectNumber);
        if (entry != null) {
            entry.extents.values().forEach(extent -> dead.dead(extent.address(), extent.lengthBytes()));
        }
        if (objects != null && objects.isEmpty()) {
            files.remove(fileId);
        }
    }

    /** Forgets every object of the file; returns the object numbers it had. */
    List<Long> removeFile(String fileId, DeadBytes dead) {
        List<Long> numbers = new ArrayList<>(objects(fileId).keySet());
        numbers.forEach(number -> removeObject(fileId, number, dead));
        return numbers;
    }

    /** Puts a whole entry as loaded from the persisted index. */
    void load(String fileId, long objectNumber, ObjectEntry entry) {
        files.computeIfAbsent(fileId, id -> new TreeMap<>()).put(objectNumber, entry);
    }

    /** Removes [from, to) from the object's extents, splitting those that straddle a bound. */
    private static void cut(ObjectEntry entry, int from, int to, DeadBytes dead) {
        Map.Entry<Integer, Extent> before = entry.extents.lowerEntry(from);
        List<Extent> affected = new ArrayList<>();
        if (before != null && before.getValue().endInObject() > from) {
            affected.add(before.getValue());
        }
        affected.addAll(entry.extents.subMap(from, true, to, false).values());
        for (Extent extent : affected) {
            entry.extents.remove(extent.offsetInObject());
            int cutFrom = Math.max(from, extent.offsetInObject());
            int cutTo = Math.min(to, extent.endInObject());
            dead.dead(extent.address() + (cutFrom - extent.offsetInObject()), cutTo - cutFrom);
            if (extent.offsetInObject() < cutFrom) {
                entry.extents.put(extent.offsetInObject(),
                        new Extent(extent.offsetInObject(), cutFrom - extent.offsetInObject(), extent.address()));
            }
            if (cutTo < extent.endInObject()) {
                entry.extents.put(cutTo, new Extent(cutTo, extent.endInObject() - cutTo,
                        extent.address() + (cutTo - extent.offsetInObject())));
            }
        }
    }

    /** The persisted form of an entry: length, then (offset, length, address) per extent, big-endian. */
    static byte[] encode(ObjectEntry entry) {
        ByteBuffer buffer = ByteBuffer.allocate(8 + 4 + entry.extents.size() * 16);
        buffer.putLong(entry.lengthBytes).putInt(entry.extents.size());
        for (Extent extent : entry.extents.values()) {
            buffer.putInt(extent.offsetInObject()).putInt(extent.lengthBytes()).putLong(extent.address());
        }
        return buffer.array();
    }

    static ObjectEntry decode(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        ObjectEntry entry = new ObjectEntry();
        entry.lengthBytes = buffer.getLong();
        int count = buffer.getInt();
        if (count < 0 || buffer.remaining() != count * 16L) {
            throw new IllegalArgumentException("index entry of " + bytes.length + " bytes does not hold " + count
                    + " extents");
        }
        for (int i = 0; i < count; i++) {
            Extent extent = new Extent(buffer.getInt(), buffer.getInt(), buffer.getLong());
            entry.extents.put(extent.offsetInObject(), extent);
        }
        return entry;
    }
}
