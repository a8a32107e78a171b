package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which objects of each file were written since they were last forced, so that an fsync forces those only, and the
 * forces of objects a sequential stream has completed run in the background while the stream goes on: the file's end
 * fsync then waits for the stream's tail, not for every object (512 MiB written in 1 MiB objects: the end fsync forced
 * 512 object files after the last write, tests/bench/fuse/README.md, "session 11").
 *
 * <p>Invariants:
 * <ul>
 * <li>A file this tracker holds nothing of (not written since the store opened, or its entry dropped for the bound)
 * counts as wholly dirty: its fsync forces every stored object. After a restart every file is such a file, so writes
 * acknowledged before a crash of the process are forced by the next fsync as before.</li>
 * <li>An object is marked after its write's bytes reached the file (page cache or device) and before the write is
 * acknowledged. A force clears the mark only if no write was marked since the force began (each mark carries a new
 * generation), so a write that races a background force is forced again by the next fsync.</li>
 * <li>A background force that fails leaves its object marked and its failure kept until the file's next fsync, which
 * reports it: the kernel reports a write-back error once, so a later fsync of a newly opened descriptor would succeed
 * with the bytes lost.</li>
 * <li>Background forces wait in a bounded queue; one that finds it full is not made (its object stays marked, the next
 * fsync forces it). At most one force per object is queued or running, and a file's fsync first waits for the file's
 * queued and running background forces (it forces nothing twice and sees their failures).</li>
 * </ul>
 * The caller orders a file's fsync, truncation and deletion after its acknowledged writes and before later ones
 * (ObjectStorage's contract); background forces are not ordered and tolerate an object deleted under them.
 * Thread-safe: one lock (this), held for map updates only, never while forcing.
 */
final class DirtyObjects implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DirtyObjects.class);

    /** Forces the given objects of a file together (their forces share the file system's writes and flushes). */
    @FunctionalInterface
    interface Forcer {
        void force(String fileId, List<Long> objectNumbers) throws IOException;
    }

    /** Forces the given objects of a file, all of them even when one fails; throws the first failure. */
    @FunctionalInterface
    interface BatchForcer {
        void forceAll(List<Long> objectNumbers) throws IOException;
    }

    /** Lists a file's stored objects (for a file that counts as wholly dirty). */
    @FunctionalInterface
    interface ObjectLister {
        List<Long> storedObjects() throws IOException;
    }

    /** One file's marks; guarded by the tracker's lock. */
    static final class FileMarks {
        /** Objects written since their last force, each with the generation of its last mark. */
        final Map<Long, Long> generations = new HashMap<>();
        /** Every stored object counts as marked (the file held objects before it was tracked, or too many marks). */
        boolean wholly;
        long lastGeneration;
        /** Objects whose background force is queued or running. */
        final Set<Long> backgroundForces = new HashSet<>();
        /** Completed objects collected for the next background batch (still marked; not waited for by an fsync). */
        final List<Long> batch = new ArrayList<>();
        /** The first failed background force since the file's last fsync. */
        IOException failure;
        /** Writes begun and not ended. */
        int writes;

        boolean droppable() {
            return writes == 0 && backgroundForces.isEmpty() && failure == null;
        }
    }

    /**
     * Files tracked at most. Dropping one loses no safety (it then counts as wholly dirty), only the saving of its next
     * fsync; a file with writes or background forces under way or a failure to report is never dropped.
     */
    static final int FILES_MAX = 4096;
    /** Marks of one file at most; beyond, the file counts as wholly dirty (bounded memory for huge unsynced files). */
    static final int MARKS_PER_FILE_MAX = 65_536;
    /**
     * Background forces queued at most. A stream that outruns the forces leaves the rest to its fsync, as before; 64
     * objects are 64 MiB of the default 1 MiB objects.
     */
    static final int BACKGROUND_QUEUE_CAPACITY = 64;

    /** Access order: the eldest is the least recently written or synced file. */
    private final LinkedHashMap<String, FileMarks> files = new LinkedHashMap<>(16, 0.75f, true);
    private final Forcer forcer;
    /** The background forcing threads (osd-force-N), or null when forces never run in the background. */
    private final ThreadPoolExecutor background;
    /** Completed objects of a file forced in the background together. */
    private final int batchObjects;
    private long backgroundForcesMade;
    private long backgroundForcesSkipped;

    /**
     * Tracks marks; with {@code backgroundThreads} > 0 the objects callers report complete are forced in the background
     * by that many threads, {@code batchObjects} of a file at a time (0 threads: never, e.g. on an emulated device,
     * whose model must see every flush as the fsync's).
     */
    DirtyObjects(Forcer forcer, int backgroundThreads, int batchObjects) {
        if (batchObjects < 1) {
            throw new IllegalArgumentException("background batch must hold at least one object, got " + batchObjects);
        }
        this.forcer = forcer;
        this.batchObjects = batchObjects;
        if (backgroundThreads > 0) {
            AtomicInteger number = new AtomicInteger();
            background = new ThreadPoolExecutor(backgroundThreads, backgroundThreads, 30, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(BACKGROUND_QUEUE_CAPACITY), task -> {
                        Thread thread = new Thread(task, "osd-force-" + number.getAndIncrement());
                        thread.setDaemon(true);
                        return thread;
                    }, new ThreadPoolExecutor.AbortPolicy());
            background.allowCoreThreadTimeOut(true); // an idle OSD keeps none
        } else {
            background = null;
        }
    }

    /** Whether a file held objects before it was tracked: its folder exists. */
    @FunctionalInterface
    interface FolderProbe {
        boolean fileExists();
    }

    /**
     * Begins a write of the file (not a synced one, which forces its own object): the caller passes the result to
     * {@link #endWrite} after the write's bytes reached the file, before it acknowledges the write. A file not tracked
     * yet is tracked from here: wholly dirty when {@code probe} finds it existed (its earlier writes are unknown), else
     * clean. The probe runs under the lock, so no other write of the file can have begun untracked meanwhile; a file
     * with a write under way is never dropped for the bound, so every write's mark lands in the file's live entry or
     * the file is untracked (wholly dirty) when its mark would be lost.
     */
    synchronized FileMarks beginWrite(String fileId, FolderProbe probe) {
        FileMarks marks = files.get(fileId);
        if (marks == null) {
            marks = new FileMarks();
            marks.wholly = probe.fileExists();
            marks.writes++; // before the bound is applied: a file with a write under way stays
            files.put(fileId, marks);
            dropEldestBeyondBound();
        } else {
            marks.writes++;
        }
        return marks;
    }

    /** Ends a write begun with {@link #beginWrite}, marking its object (also when the write failed part way). */
    synchronized void endWrite(FileMarks marks, long objectNumber) {
        marks.writes--;
        marks.generations.put(objectNumber, ++marks.lastGeneration);
        if (marks.generations.size() > MARKS_PER_FILE_MAX && marks.backgroundForces.isEmpty()) {
            marks.wholly = true;
            marks.generations.clear();
        }
    }

    /**
     * Forces a marked object in the background: one a sequential stream has written to its end. Collects such objects
     * of the file until a batch is full, then queues the batch. Does nothing when background forcing is off, the object
     * is not marked, or it is collected, queued or being forced already; a batch that finds the queue full is not made
     * (its objects stay marked).
     */
    void completed(String fileId, long objectNumber) {
        if (background == null) {
            return;
        }
        FileMarks marks;
        Map<Long, Long> batch = new HashMap<>();
        synchronized (this) {
            marks = files.get(fileId);
            if (marks == null || !marks.generations.containsKey(objectNumber)
                    || marks.backgroundForces.contains(objectNumber) || marks.batch.contains(objectNumber)) {
                return;
            }
            marks.batch.add(objectNumber);
            if (marks.batch.size() < batchObjects) {
                return;
            }
            for (long object : marks.batch) {
                Long generation = marks.generations.get(object);
                if (generation != null && marks.backgroundForces.add(object)) {
                    batch.put(object, generation);
                }
            }
            marks.batch.clear();
        }
        try {
            background.execute(() -> forceInBackground(fileId, marks, batch));
        } catch (RejectedExecutionException full) {
            synchronized (this) {
                backgroundForcesSkipped += batch.size();
                marks.backgroundForces.removeAll(batch.keySet());
                notifyAll();
            }
        }
    }

    private void forceInBackground(String fileId, FileMarks marks, Map<Long, Long> batch) {
        IOException failure = null;
        boolean forced = false;
        try {
            forcer.force(fileId, sortedKeys(batch));
            forced = true;
        } catch (NoSuchFileException gone) {
            // Truncated or deleted since it was written: no failure. The batch's objects keep their marks (which of
            // them were forced is unknown); the next fsync forces those still there.
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("cannot force objects " + batch.keySet() + " of " + fileId + ": " + e, e);
        }
        synchronized (this) {
            backgroundForcesMade += batch.size();
            if (forced) {
                batch.forEach(marks.generations::remove); // only marks no write renewed since the force began
            } else if (failure != null && marks.failure == null) {
                marks.failure = failure;
            }
            marks.backgroundForces.removeAll(batch.keySet());
            notifyAll();
        }
        if (failure != null) {
            LOG.warn("background force of objects {} of {} failed; the file's next fsync reports it", batch.keySet(),
                    fileId, failure);
        }
    }

    /**
     * The fsync of a file: waits for its background forces, forces its marked objects with {@code forceAll} (every
     * stored object, from {@code lister}, when it counts as wholly dirty), clears the marks a force covered, and throws
     * the first failure of these forces or of a background force since the file's last fsync.
     */
    void fsync(String fileId, ObjectLister lister, BatchForcer forceAll) throws IOException {
        FileMarks marks;
        Map<Long, Long> snapshot;
        boolean wholly;
        IOException backgroundFailure;
        boolean interrupted = false;
        synchronized (this) {
            marks = files.get(fileId);
            while (marks != null && !marks.backgroundForces.isEmpty()) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the forces run on: wait for them, then keep the interrupt
                }
            }
            wholly = marks == null || marks.wholly;
            snapshot = marks == null ? Map.of() : new HashMap<>(marks.generations);
            backgroundFailure = marks == null ? null : marks.failure;
            if (marks != null) {
                marks.failure = null;
                marks.batch.clear(); // still marked: forced below
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        List<Long> objects = wholly ? lister.storedObjects() : sortedKeys(snapshot);
        try {
            forceAll.forceAll(objects);
        } catch (IOException e) {
            if (backgroundFailure == null) {
                throw e; // every mark stays: the next fsync forces them again
            }
            backgroundFailure.addSuppressed(e);
            throw backgroundFailure;
        }
        synchronized (this) {
            if (marks == null) {
                if (!files.containsKey(fileId)) {
                    files.put(fileId, new FileMarks()); // every stored object forced: clean from here
                    dropEldestBeyondBound();
                }
            } else {
                snapshot.forEach(marks.generations::remove); // only marks no write renewed since
                if (wholly) {
                    marks.wholly = false; // the objects listed were forced; any written since are marked
                }
            }
        }
        if (backgroundFailure != null) {
            throw backgroundFailure;
        }
    }

    /**
     * After a truncation that created the file (fio lays a new file out with one, through the mount): every object it
     * left was forced by it, so an untracked file is tracked as clean from here rather than wholly dirty.
     */
    synchronized void createdDurably(String fileId) {
        if (!files.containsKey(fileId)) {
            files.put(fileId, new FileMarks());
            dropEldestBeyondBound();
        }
    }

    /** After a truncation to {@code lastObject} (-1: none left): the objects beyond it are gone and need no force. */
    synchronized void truncated(String fileId, long lastObject) {
        FileMarks marks = files.get(fileId);
        if (marks != null) {
            marks.generations.keySet().removeIf(objectNumber -> objectNumber > lastObject);
            marks.batch.removeIf(objectNumber -> objectNumber > lastObject);
        }
    }

    /** After a deletion: the file's marks and any failure to report go with it. */
    synchronized void deleted(String fileId) {
        files.remove(fileId);
    }

    /** The marked objects of a tracked file, ascending (tests). */
    synchronized List<Long> marked(String fileId) {
        FileMarks marks = files.get(fileId);
        return marks == null ? List.of() : sortedKeys(marks.generations);
    }

    /** Whether the file counts as wholly dirty (untracked, or tracked as such). */
    synchronized boolean wholly(String fileId) {
        FileMarks marks = files.get(fileId);
        return marks == null || marks.wholly;
    }

    /** Background forces made and skipped (queue full) since the tracker started. */
    synchronized long backgroundForcesMade() {
        return backgroundForcesMade;
    }

    synchronized long backgroundForcesSkipped() {
        return backgroundForcesSkipped;
    }

    /** Waits until no background force is queued or running (tests). */
    synchronized void awaitBackgroundForces() throws InterruptedException {
        while (files.values().stream().anyMatch(marks -> !marks.backgroundForces.isEmpty())) {
            wait();
        }
    }

    @Override
    public void close() {
        if (background != null) {
            background.shutdown(); // queued forces still run: their objects stay marked until then
        }
    }

    private void dropEldestBeyondBound() {
        Iterator<FileMarks> eldest = files.values().iterator();
        while (files.size() > FILES_MAX && eldest.hasNext()) {
            if (eldest.next().droppable()) {
                eldest.remove();
            }
        }
    }

    private static List<Long> sortedKeys(Map<Long, Long> generations) {
        List<Long> objects = new ArrayList<>(generations.keySet());
        objects.sort(null);
        return objects;
    }
}
