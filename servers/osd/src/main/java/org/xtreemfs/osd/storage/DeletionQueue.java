package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * Files whose objects are to be deleted, each with the wall-clock time from which it may be. Every entry is
 * a record in the OSD's metadata store (key {@link #KEY_PREFIX} + file id, value the due time in ASCII),
 * written with a synced WAL before {@link #enqueue} returns, so an acknowledged unlink survives a crash; an
 * entry disappears only after {@link #complete}, i.e. after the objects are gone. A new instance on the same
 * store resumes every pending entry.
 *
 * <p>Why the store and not a file per entry: a temp file + rename + folder fsync cost three journal commits
 * per unlink (about 8 ms each here under load); a synced RocksDB write is one WAL fdatasync, and RocksDB
 * commits concurrent synced writes as one group, so unlinks arriving together share that fsync.
 *
 * <p>An OSD that holds nothing of the file (no objects, no metadata: e.g. the other stripe positions of a
 * small file) has nothing a power failure could resurrect, so its entry is written to the WAL without an
 * fsync and the file id is remembered as unsynced. Invariant: no data of a file with an unsynced entry
 * reaches the disk — the storage stage calls {@link #syncBeforeData} before every write or truncate, which
 * fsyncs the WAL first. So after any crash, every file with stored data still has its entry.
 *
 * <p>Taking due entries marks them in progress so they are handed out once; {@link #retryLater} returns one
 * that could not be deleted now. The waiting entries are indexed by due time, so a take reads only the entries it
 * hands out (with osd.deletion.delayMs = 60 s a poll every 100 ms scanned a minute of unlinks, all not yet due), and
 * one take hands out at most {@link #TAKE_MAX}. Thread-safe.
 */
public final class DeletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(DeletionQueue.class);
    /**
     * Key prefix of the entries. File metadata keys are file ids ("volume:inode", text), which never start
     * with a NUL byte, so the two record kinds cannot collide.
     */
    static final byte[] KEY_PREFIX = {0, 'D', 'E', 'L', 0};
    private static final String LEGACY_TEMP_SUFFIX = ".tmp";

    private final KvStore store;
    private final Clock clock;
    private final long delayMs;
    private final int pendingMax;
    /**
     * Entries one {@link #takeDue} hands out at most, earliest due first: a backlog (a restart after a long outage,
     * a deleted volume) goes to the storage stage in pieces rather than as one list of up to pendingMax.
     */
    public static final int TAKE_MAX = 1_024;

    /** Waiting entries (not in progress) by file id; {@link #waitingByDue} holds the same entries by due time. */
    private final Map<String, Long> dueMillisByFileId = new HashMap<>();
    /**
     * The waiting entries by due time: one bucket per due time (a batch's files share theirs, so a batch costs one tree
     * node, not one per file), each file in exactly one bucket, no bucket empty.
     */
    private final TreeMap<Long, ArrayDeque<String>> waitingByDue = new TreeMap<>();
    private final Map<String, Long> inProgress = new HashMap<>();
    /** Pending entries written without an fsync (their file held nothing when enqueued). */
    private final Set<String> unsyncedFileIds = new HashSet<>();

    /**
     * @param legacyFolder where an OSD before this change kept one file per entry; its entries are moved into
     *     the store (one synced batch) and the folder removed, so pending deletions survive the upgrade
     */
    public DeletionQueue(KvStore store, Path legacyFolder, Clock clock, long delayMs, int pendingMax)
            throws IOException {
        if (delayMs < 0 || pendingMax < 1) {
            throw new IllegalArgumentException("deletion delay must be >= 0 and pendingMax >= 1: " + delayMs
                    + ", " + pendingMax);
        }
        this.store = store;
        this.clock = clock;
        this.delayMs = delayMs;
        this.pendingMax = pendingMax;
        load();
        if (legacyFolder != null) {
            importLegacyFolder(legacyFolder);
        }
    }

    private void load() throws IOException {
        try (KvIterator entries = store.iterator(KeyRange.prefix(KEY_PREFIX))) {
            while (entries.hasNext()) {
                KvEntry entry = entries.next();
                String fileId = new String(Arrays.copyOfRange(entry.key(), KEY_PREFIX.length, entry.key().length),
                        StandardCharsets.UTF_8);
                putWaiting(fileId, parseDue(fileId, new String(entry.value(), StandardCharsets.US_ASCII)));
            }
        } catch (KvException e) {
            throw new IOException("cannot read the deletion queue: " + e.getMessage(), e);
        }
    }

    private static long parseDue(String fileId, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            // Cannot happen for store records (a batch is atomic); a torn legacy file is deleted at once.
            LOG.warn("deletion entry of file {} is unreadable ('{}'); deleting its objects now", fileId, text);
            return 0L;
        }
    }

    private void importLegacyFolder(Path folder) throws IOException {
        WriteBatch batch = new WriteBatch();
        List<Path> imported = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                imported.add(entry);
                String name = entry.getFileName().toString();
                if (name.endsWith(LEGACY_TEMP_SUFFIX)) {
                    continue; // never renamed into place: its unlink was not acknowledged
                }
                String fileId = FileIds.unescape(name);
                long due = parseDue(fileId, Files.readString(entry, StandardCharsets.US_ASCII));
                if (!dueMillisByFileId.containsKey(fileId)) {
                    putWaiting(fileId, due);
                    batch.put(key(fileId), encodeDue(due));
                }
            }
        } catch (NoSuchFileException e) {
            return;
        }
        if (batch.size() > 0) {
            writeEntries(batch, "import " + batch.size() + " deletion entries from " + folder);
            LOG.info("moved {} pending deletions from {} into the metadata store", batch.size(), folder);
        }
        // Only after the synced import: a crash before this point re-imports (idempotent).
        for (Path entry : imported) {
            Files.deleteIfExists(entry);
        }
        Files.deleteIfExists(folder);
    }

    /** {@link #enqueue(String, boolean)} for a file that may hold data: always synced. */
    public boolean enqueue(String fileId) throws IOException {
        return enqueue(fileId, true);
    }

    /**
     * Records that the file's objects are to be deleted after the delay: with a synced WAL when
     * {@code holdsData}, else written to the WAL without fsync and remembered for {@link #syncBeforeData}.
     * Enqueuing a file that is already pending keeps its earlier due time.
     *
     * @param holdsData whether this OSD stores any object or metadata of the file (the caller knows: work
     *     on one file is ordered, so nothing of it is written concurrently)
     * @return false when {@code pendingMax} deletions are already pending (the caller reports overload)
     */
    public boolean enqueue(String fileId, boolean holdsData) throws IOException {
        long due = clock.wallClockMillis() + delayMs;
        synchronized (this) {
            if (dueMillisByFileId.containsKey(fileId) || inProgress.containsKey(fileId)) {
                return true;
            }
            if (pendingCount() >= pendingMax) {
                return false;
            }
            putWaiting(fileId, due);
            if (!holdsData) {
                unsyncedFileIds.add(fileId);
            }
        }
        try {
            writeEntries(new WriteBatch().put(key(fileId), encodeDue(due)), "record the deletion of file " + fileId,
                    holdsData ? Durability.SYNC : Durability.BUFFERED);
        } catch (IOException e) {
            synchronized (this) {
                removeWaiting(fileId);
                unsyncedFileIds.remove(fileId);
            }
            throw e;
        }
        return true;
    }

    /**
     * Records the deletion of every file of a batch (OSD_DELETE_FILES) with ONE synced write, each due after the
     * delay; files already pending keep their earlier due time. Synced whatever this OSD holds of them: the batch
     * shares one fsync, and nothing else of these files needs to know about unsynced entries.
     *
     * @return false, recording none, when they would take the queue past {@code pendingMax} (the caller reports
     *     overload and the sender repeats them later)
     */
    public boolean enqueueAll(List<String> fileIds) throws IOException {
        return enqueueBatches(List.of(fileIds))[0];
    }

    /**
     * {@link #enqueueAll} of several batches (OSD_DELETE_FILES calls that arrived together) with ONE synced write for
     * all of them: each batch is taken whole or refused whole (false at its index: it would take the queue past
     * {@code pendingMax}), in order. When the write fails none is recorded and the exception is every batch's answer.
     */
    public boolean[] enqueueBatches(List<List<String>> batches) throws IOException {
        long due = clock.wallClockMillis() + delayMs;
        boolean[] taken = new boolean[batches.size()];
        // Disjoint per batch: a file an earlier batch added is pending by the time a later one is checked.
        List<String> added = new ArrayList<>();
        WriteBatch batch = new WriteBatch();
        synchronized (this) {
            for (int i = 0; i < batches.size(); i++) {
                Set<String> addedHere = new LinkedHashSet<>();
                for (String fileId : batches.get(i)) {
                    if (!dueMillisByFileId.containsKey(fileId) && !inProgress.containsKey(fileId)) {
                        addedHere.add(fileId);
                    }
                }
                if (pendingCount() + addedHere.size() > pendingMax) {
                    continue;
                }
                taken[i] = true;
                ArrayDeque<String> bucket = addedHere.isEmpty() ? null : bucket(due);
                for (String fileId : addedHere) {
                    dueMillisByFileId.put(fileId, due);
                    bucket.add(fileId);
                    unsyncedFileIds.remove(fileId);
                    batch.put(key(fileId), encodeDue(due));
                    added.add(fileId);
                }
            }
            if (added.isEmpty()) {
                return taken;
            }
        }
        try {
            writeEntries(batch, "record the deletion of " + added.size() + " files");
        } catch (IOException e) {
            synchronized (this) {
                added.forEach(this::removeWaiting);
            }
            throw e;
        }
        return taken;
    }

    /**
     * Call before writing anything of the file to disk: if its deletion entry was written without an fsync,
     * fsyncs the WAL now (which makes every entry written so far durable).
     */
    public void syncBeforeData(String fileId) throws IOException {
        List<String> synced;
        synchronized (this) {
            if (!unsyncedFileIds.contains(fileId)) {
                return;
            }
            synced = List.copyOf(unsyncedFileIds);
        }
        try {
            store.sync();
        } catch (KvException e) {
            throw new IOException("cannot sync the deletion entry of file " + fileId + ": " + e.getMessage(), e);
        }
        synchronized (this) {
            synced.forEach(unsyncedFileIds::remove);
        }
    }

    /** Whether the file's pending entry was written without an fsync and no data has made it sync yet. */
    public synchronized boolean isUnsynced(String fileId) {
        return unsyncedFileIds.contains(fileId);
    }

    private void writeEntries(WriteBatch batch, String action) throws IOException {
        writeEntries(batch, action, Durability.SYNC);
    }

    private void writeEntries(WriteBatch batch, String action, Durability durability) throws IOException {
        try {
            store.write(batch, durability);
        } catch (KvException e) {
            throw new IOException("cannot " + action + ": " + e.getMessage(), e);
        }
    }

    /**
     * Takes the entries due now, at most {@link #TAKE_MAX}, earliest due first, and marks them in progress; each must
     * end in complete or retryLater. Reads only the entries it takes (and the first one not due). Sorted by file id.
     */
    public synchronized List<String> takeDue() {
        long now = clock.wallClockMillis();
        List<String> due = new ArrayList<>();
        while (due.size() < TAKE_MAX && !waitingByDue.isEmpty() && waitingByDue.firstKey() <= now) {
            Map.Entry<Long, ArrayDeque<String>> bucket = waitingByDue.firstEntry();
            ArrayDeque<String> fileIds = bucket.getValue();
            while (due.size() < TAKE_MAX && !fileIds.isEmpty()) {
                String fileId = fileIds.poll();
                dueMillisByFileId.remove(fileId);
                inProgress.put(fileId, bucket.getKey());
                due.add(fileId);
            }
            if (fileIds.isEmpty()) {
                waitingByDue.pollFirstEntry();
            }
        }
        due.sort(null);
        return due;
    }

    /** Adds a waiting entry to both indexes; the caller holds this queue's lock and knows it is not pending. */
    private void putWaiting(String fileId, long dueMillis) {
        dueMillisByFileId.put(fileId, dueMillis);
        bucket(dueMillis).add(fileId);
    }

    /** The bucket of entries due at {@code dueMillis}, made if none; the caller adds to it (no bucket stays empty). */
    private ArrayDeque<String> bucket(long dueMillis) {
        return waitingByDue.computeIfAbsent(dueMillis, due -> new ArrayDeque<>());
    }

    /**
     * Removes a waiting entry from both indexes (none: nothing); the caller holds this queue's lock. Linear in its
     * bucket: only a failed record's undo calls it.
     */
    private void removeWaiting(String fileId) {
        Long due = dueMillisByFileId.remove(fileId);
        if (due != null) {
            ArrayDeque<String> bucket = waitingByDue.get(due);
            bucket.remove(fileId);
            if (bucket.isEmpty()) {
                waitingByDue.remove(due);
            }
        }
    }

    /**
     * Adds the removal of a taken entry to {@code batch}; the caller writes it once the objects are durably
     * gone (in the same batch as the file's metadata, so both disappear together or not at all) and then
     * calls {@link #completed}.
     */
    public WriteBatch addRemoval(WriteBatch batch, String fileId) {
        return batch.delete(key(fileId));
    }

    /** The removal written by {@link #addRemoval} is in the store: forgets the entry. */
    public synchronized void completed(String fileId) {
        inProgress.remove(fileId);
        unsyncedFileIds.remove(fileId);
    }

    /** The objects of a taken entry are deleted: removes the entry (for callers without their own batch). */
    public void complete(String fileId) throws IOException {
        writeEntries(addRemoval(new WriteBatch(), fileId), "remove the deletion entry of file " + fileId);
        completed(fileId);
    }

    /** A taken entry could not be processed now; it is due again at once. */
    public synchronized void retryLater(String fileId) {
        Long due = inProgress.remove(fileId);
        if (due != null) {
            putWaiting(fileId, due);
        }
    }

    /** Wall-clock time of the earliest waiting entry, empty when none waits. */
    public synchronized OptionalLong nextDueMillis() {
        return waitingByDue.isEmpty() ? OptionalLong.empty() : OptionalLong.of(waitingByDue.firstKey());
    }

    public synchronized boolean isPending(String fileId) {
        return dueMillisByFileId.containsKey(fileId) || inProgress.containsKey(fileId);
    }

    /** Entries waiting or in progress. */
    public synchronized int pendingCount() {
        return dueMillisByFileId.size() + inProgress.size();
    }

    public long delayMs() {
        return delayMs;
    }

    private static byte[] key(String fileId) {
        byte[] id = fileId.getBytes(StandardCharsets.UTF_8);
        byte[] key = Arrays.copyOf(KEY_PREFIX, KEY_PREFIX.length + id.length);
        System.arraycopy(id, 0, key, KEY_PREFIX.length, id.length);
        return key;
    }

    private static byte[] encodeDue(long dueMillis) {
        return Long.toString(dueMillis).getBytes(StandardCharsets.US_ASCII);
    }
}
