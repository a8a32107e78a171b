package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;

/**
 * Files whose objects are to be deleted, each with the wall-clock time from which it may be. Every entry is
 * a small file in {@code folder} (escaped file id → due time) written durably before {@link #enqueue}
 * returns, so an acknowledged unlink survives a crash; an entry disappears only after {@link #complete},
 * i.e. after the objects are gone. A new instance on the same folder resumes every pending entry.
 *
 * <p>Taking due entries marks them in progress so they are handed out once; {@link #retryLater} returns one
 * that could not be deleted now. Thread-safe.
 */
public final class DeletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(DeletionQueue.class);
    private static final String TEMP_SUFFIX = ".tmp";

    private final Path folder;
    private final Clock clock;
    private final long delayMs;
    private final int pendingMax;
    private final Map<String, Long> dueMillisByFileId = new HashMap<>();
    private final Map<String, Long> inProgress = new HashMap<>();

    public DeletionQueue(Path folder, Clock clock, long delayMs, int pendingMax) throws IOException {
        if (delayMs < 0 || pendingMax < 1) {
            throw new IllegalArgumentException("deletion delay must be >= 0 and pendingMax >= 1: " + delayMs
                    + ", " + pendingMax);
        }
        this.folder = folder;
        this.clock = clock;
        this.delayMs = delayMs;
        this.pendingMax = pendingMax;
        Files.createDirectories(folder);
        load();
    }

    private void load() throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.endsWith(TEMP_SUFFIX)) {
                    Files.deleteIfExists(entry);
                    continue;
                }
                try {
                    long due = Long.parseLong(Files.readString(entry, StandardCharsets.US_ASCII).trim());
                    dueMillisByFileId.put(FileIds.unescape(name), due);
                } catch (NumberFormatException e) {
                    // A torn entry cannot exist (temp + rename); an unreadable one is deleted at once.
                    LOG.warn("deletion entry {} is unreadable; deleting its file now", entry);
                    dueMillisByFileId.put(FileIds.unescape(name), 0L);
                }
            }
        }
    }

    /**
     * Records durably that the file's objects are to be deleted after the delay. Enqueuing a file that is
     * already pending keeps its earlier due time.
     *
     * @return false when {@code pendingMax} deletions are already pending (the caller reports overload)
     */
    public boolean enqueue(String fileId) throws IOException {
        long due = clock.wallClockMillis() + delayMs;
        synchronized (this) {
            if (dueMillisByFileId.containsKey(fileId) || inProgress.containsKey(fileId)) {
                return true;
            }
            if (pendingCount() >= pendingMax) {
                return false;
            }
            dueMillisByFileId.put(fileId, due);
        }
        try {
            writeEntry(fileId, due);
        } catch (IOException e) {
            synchronized (this) {
                dueMillisByFileId.remove(fileId);
            }
            throw e;
        }
        return true;
    }

    private void writeEntry(String fileId, long dueMillis) throws IOException {
        String name = FileIds.escape(fileId);
        Path temp = folder.resolve(name + TEMP_SUFFIX);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap((dueMillis + "\n").getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temp, folder.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        ObjectStore.forceFile(folder);
    }

    /** Takes every entry due now and marks it in progress; each must end in complete or retryLater. */
    public synchronized List<String> takeDue() {
        long now = clock.wallClockMillis();
        List<String> due = new ArrayList<>();
        dueMillisByFileId.entrySet().removeIf(entry -> {
            if (entry.getValue() <= now) {
                due.add(entry.getKey());
                inProgress.put(entry.getKey(), entry.getValue());
                return true;
            }
            return false;
        });
        due.sort(null);
        return due;
    }

    /** The objects of a taken entry are deleted: removes the entry durably. */
    public void complete(String fileId) throws IOException {
        Files.deleteIfExists(folder.resolve(FileIds.escape(fileId)));
        ObjectStore.forceFile(folder);
        synchronized (this) {
            inProgress.remove(fileId);
        }
    }

    /** A taken entry could not be processed now; it is due again at once. */
    public synchronized void retryLater(String fileId) {
        Long due = inProgress.remove(fileId);
        if (due != null) {
            dueMillisByFileId.put(fileId, due);
        }
    }

    /** Wall-clock time of the earliest waiting entry, empty when none waits. */
    public synchronized OptionalLong nextDueMillis() {
        return dueMillisByFileId.values().stream().mapToLong(Long::longValue).min();
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
}
