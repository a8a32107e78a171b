package org.xtreemfs.osd.stages;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xtreemfs.osd.stages.OsdRequest.ObjectAccess;
import org.xtreemfs.osd.stages.OsdRequest.WriteObject;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;

/**
 * Decides which storage work of one file may run at the same time. Work on a file runs in arrival order
 * wherever the order can be seen, and concurrently wherever it cannot:
 *
 * <ul>
 *   <li>reads and writes of different objects of a file never conflict (each object is its own file on
 *       disk; the one shared record, the file's size, is updated under {@code ObjectStore}'s per-file lock);
 *   <li>two accesses of the same object conflict when their byte ranges overlap, unless both are reads
 *       (overlapping writes land in arrival order, and a read sees exactly the writes that arrived before it);
 *       disjoint ranges of one object never conflict, since what one changes the other neither reads nor writes
 *       (positional pread/pwrite of one object file; the log layout serialises its appends itself), so 4 KiB
 *       random writes into large objects (1 MiB by default) run together as they do into small ones. A replica
 *       fill's copy covers the whole object;
 *   <li>everything else (truncate, unlink, fsync, get-file-size, deleting the objects) concerns the whole file
 *       and conflicts with every access of it, before and after.
 * </ul>
 *
 * <p>Invariant: a work is released (handed out to run) only when no earlier unfinished work of its file
 * conflicts with it, and each work is released exactly once. So 32 random reads of one file reach the disk
 * together, and a striped write's objects are written in parallel, where a single lane per file used to run
 * them one after another. Thread-safe; bounded by {@code capacity} works admitted and not yet finished.
 *
 * <p>Without {@code concurrentWithinFile} every work of a file conflicts with every other (one at a time, in
 * arrival order), for a device with one head: there two writes of one sequential stream that ran together
 * reached the disk in either order, each then a seek (OsdFairQueueTest's reserved stream on an emulated HDD
 * fell from its reservation to a sixth of it).
 */
final class FileAccessOrder {
    private final int capacity;
    private final boolean concurrentWithinFile;
    /** The unfinished works of each file in arrival order; a file with none has no entry. */
    private final Map<String, List<Entry>> entriesByFileId = new HashMap<>();
    private int admittedCount;

    private static final class Entry {
        final StorageWork work;
        /** The bytes of one object the work touches, fixed at admission; null for whole-file work. */
        final Range range;
        boolean released;

        Entry(StorageWork work) {
            this.work = work;
            this.range = Range.of(work);
        }
    }

    /**
     * The bytes {@code [start, end)} of object {@code objectNumber} an access reads or writes. An empty access counts
     * as one byte at its offset (it still opens or creates the object), so it is ordered like any access there.
     */
    record Range(long objectNumber, long start, long end, boolean writes) {
        static Range of(StorageWork work) {
            if (!(work instanceof AuthorizedRequest authorized
                    && authorized.request() instanceof ObjectAccess access)) {
                return null;
            }
            long length;
            if (access instanceof OsdRequest.ReadObject read) {
                length = read.length();
            } else if (access instanceof WriteObject write) {
                length = write.data().readableBytes();
            } else {
                length = Long.MAX_VALUE - access.offset(); // a copy: the whole object, whatever its size
            }
            // A replica fill's copy of an object writes it: ordered with every access of that object.
            boolean writes = access instanceof WriteObject || access instanceof OsdRequest.CopyObject;
            return new Range(access.objectNumber(), access.offset(), access.offset() + Math.max(1, length), writes);
        }

        boolean overlaps(Range other) {
            return objectNumber == other.objectNumber && start < other.end && other.start < end;
        }
    }

    /** What {@link #admit} did with a work. */
    enum Admission {
        /** Admitted and released at once: the caller runs it now. */
        RUN_NOW,
        /** Admitted behind conflicting earlier work: a later {@link #finish} releases it. */
        WAITING,
        /** Not admitted: {@code capacity} works are unfinished. */
        FULL
    }

    FileAccessOrder(int capacity, boolean concurrentWithinFile) {
        if (capacity < 1) {
            throw new IllegalArgumentException("file access order needs capacity >= 1, got " + capacity);
        }
        this.capacity = capacity;
        this.concurrentWithinFile = concurrentWithinFile;
    }

    synchronized Admission admit(StorageWork work) {
        if (admittedCount >= capacity) {
            return Admission.FULL;
        }
        admittedCount++;
        List<Entry> entries = entriesByFileId.computeIfAbsent(work.fileId(), id -> new ArrayList<>(4));
        Entry entry = new Entry(work);
        entries.add(entry);
        entry.released = mayRun(entries, entries.size() - 1);
        return entry.released ? Admission.RUN_NOW : Admission.WAITING;
    }

    /**
     * Forgets a released work that has finished (or was discarded) and returns the works of its file that
     * this released, in arrival order; the caller runs each of them.
     *
     * @throws IllegalStateException if {@code work} (by identity) is not a released, unfinished work
     */
    synchronized List<StorageWork> finish(StorageWork work) {
        List<Entry> entries = entriesByFileId.get(work.fileId());
        int index = entries == null ? -1 : indexOf(entries, work);
        if (index < 0 || !entries.get(index).released) {
            throw new IllegalStateException("storage work on file " + work.fileId() + " finished without having "
                    + "been released to run: " + work);
        }
        entries.remove(index);
        admittedCount--;
        if (entries.isEmpty()) {
            entriesByFileId.remove(work.fileId());
            return List.of();
        }
        List<StorageWork> released = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            if (!entry.released && mayRun(entries, i)) {
                entry.released = true;
                released.add(entry.work);
            }
        }
        return released;
    }

    /** Works admitted and not yet finished, released or waiting. */
    synchronized int size() {
        return admittedCount;
    }

    int capacity() {
        return capacity;
    }

    private boolean mayRun(List<Entry> entries, int index) {
        if (!concurrentWithinFile) {
            return index == 0;
        }
        Range later = entries.get(index).range;
        for (int i = 0; i < index; i++) {
            if (conflict(entries.get(i).range, later)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(List<Entry> entries, StorageWork work) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).work == work) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code later} must wait for {@code earlier} (both of one file); see the class comment. */
    static boolean conflict(Range earlier, Range later) {
        if (earlier == null || later == null) {
            return true;
        }
        return earlier.overlaps(later) && (earlier.writes() || later.writes());
    }
}
