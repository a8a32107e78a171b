package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-ahead across the object files of a sequential stream (issue 10): each object is a file of its own, so the
 * kernel's read-ahead stops at every object's end, and a cold sequential reader kept only its own requests at the disk
 * (fio's queue depth of 1 MiB reads, less the turnaround through the mount and this OSD). When a read reaches the end
 * of an object near the previous such read of the file here, the next objects this OSD holds of the file, up to
 * {@code bytesAhead} (and {@link #OBJECTS_AHEAD_MAX} objects) ahead of the read, are brought into the page cache in the background, so the reads that follow
 * find them there.
 *
 * <p>How: {@code sendfile} of the object file to /dev/null ({@link FileChannel#transferTo}), which fills the page cache
 * by the kernel's own read-ahead and copies no byte (Java 17 has no posix_fadvise). It blocks its thread until the
 * object is read, so a bounded pool of threads ({@code threads} objects at the disk at once) does it, with a bounded
 * queue: what does not fit is dropped (a read-ahead is a hint; the read that follows then goes to the disk itself). A
 * missing object (past the file's end, deleted) is skipped. Nothing here is ordered with the file's other work: it only
 * reads, through a channel of its own, never the storage's cached one (a deletion must not find a channel it did
 * not close).
 *
 * <p>A stream is two reads of the file within {@link #STREAM_SPAN_OBJECTS} stripe rounds of each other (in either
 * order: a client's concurrent requests arrive permuted), each reaching its object's end with at least
 * {@link #READ_BYTES_MIN} bytes; random reads (4 KiB, or whole objects far apart) start none. The objects ahead of
 * a stream are read once: each file remembers how far it was read ahead ({@link #FILES_MAX} files, least recently
 * read forgotten first).
 *
 * <p>An object read whole into the page cache here is remembered ({@link #CACHED_OBJECTS_MAX}, oldest forgotten
 * first) until a read of it asks ({@link #takeReadAhead}): that read then skips its own page-in walk over the object's
 * pages (ObjectStore.readRegion), which on a cold stream is already done here.
 */
final class ObjectReadAhead implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectReadAhead.class);

    /** Reads shorter than this start no read-ahead: the kernel's smallest read-ahead unit of a buffered reader. */
    static final int READ_BYTES_MIN = 128 * 1024;
    /** Two reads of a file at most this many of its objects on this OSD apart belong to one stream. */
    static final int STREAM_SPAN_OBJECTS = 16;
    /**
     * Objects read ahead of one stream at most, whatever their size: each costs an open, a sendfile and a thread
     * hand-off, and 16 MiB of 128 KiB objects (a reserved volume's) would be 128 of them per stream.
     */
    static final int OBJECTS_AHEAD_MAX = 16;
    /** Files whose streams are remembered. */
    static final int FILES_MAX = 1024;
    /** Read-aheads waiting for a thread at most; more are dropped. */
    static final int QUEUE_CAPACITY = 256;
    /**
     * Threads reading ahead, each blocked in one object's sendfile until the disk delivered it: the objects of all
     * streams of this OSD that are read ahead at once, on top of the clients' own reads.
     */
    static final int THREADS = 16;
    /**
     * Objects read ahead whose page-in a read may skip, at most: a stream's window ({@link #OBJECTS_AHEAD_MAX}) for
     * each of 16 streams. An object read ahead longer ago than that may be evicted again, and is paged in as usual.
     */
    static final int CACHED_OBJECTS_MAX = 16 * OBJECTS_AHEAD_MAX;

    /** Where an object file of a file id is. */
    @FunctionalInterface
    interface ObjectPaths {
        Path objectPath(String fileId, long objectNumber);
    }

    /** Where an object to read ahead goes: the pool's queue (or a test's list). */
    @FunctionalInterface
    private interface ObjectReader {
        void read(String fileId, long objectNumber, Path path);
    }

    /** An object of a file. */
    private record ObjectKey(String fileId, long objectNumber) {
        /*
         * Written out, as OpenObjectFiles.ObjectKey's: the generated equals and hashCode go through an invokedynamic
         * method-handle chain, which the JIT compiles into every large read's path (afterRead, takeReadAhead).
         */
        @Override
        public boolean equals(Object other) {
            return this == other || other instanceof ObjectKey key && objectNumber == key.objectNumber
                    && java.util.Objects.equals(fileId, key.fileId);
        }

        @Override
        public int hashCode() {
            return 31 * java.util.Objects.hashCode(fileId) + Long.hashCode(objectNumber);
        }
    }

    /** One file's stream: the last read that reached its object's end, and the last object read ahead. */
    private static final class Stream {
        long lastObject;
        long aheadUntilObject;

        Stream(long objectNumber) {
            lastObject = objectNumber;
            aheadUntilObject = objectNumber;
        }
    }

    private final ObjectPaths paths;
    private final long bytesAhead;
    private final ObjectReader reader;
    /** Null when a test reads ahead itself. */
    private final ThreadPoolExecutor threads;
    private final FileChannel devNull;
    /** Access order: the eldest entry is the least recently read file. Guarded by itself. */
    private final LinkedHashMap<String, Stream> streams = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Stream> eldest) {
            return size() > FILES_MAX;
        }
    };
    /** Objects read whole into the page cache that no read has taken yet (insertion order). Guarded by itself. */
    private final LinkedHashMap<ObjectKey, Boolean> readWhole = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ObjectKey, Boolean> eldest) {
            return size() > CACHED_OBJECTS_MAX;
        }
    };
    private final AtomicLong objectsReadAhead = new AtomicLong();
    private final AtomicLong objectsDropped = new AtomicLong();

    /**
     * Reads the objects within {@code bytesAhead} after a stream's read with {@link #THREADS} threads
     * (osd-read-ahead-N, daemons, made on demand and ended after 30 s idle).
     */
    ObjectReadAhead(ObjectPaths paths, long bytesAhead) throws IOException {
        this(paths, bytesAhead, null);
    }

    /** As above, handing each object to read ahead to {@code reader} on the calling thread instead (tests). */
    ObjectReadAhead(ObjectPaths paths, long bytesAhead, Consumer<Path> reader) throws IOException {
        if (bytesAhead < 1) {
            throw new IllegalArgumentException("read-ahead needs bytes ahead >= 1, got " + bytesAhead);
        }
        this.paths = paths;
        this.bytesAhead = bytesAhead;
        if (reader != null) {
            this.devNull = null;
            this.threads = null;
            this.reader = (fileId, objectNumber, path) -> reader.accept(path);
            return;
        }
        this.devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
        AtomicInteger number = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE_CAPACITY), task -> {
                    Thread thread = new Thread(task, "osd-read-ahead-" + number.getAndIncrement());
                    thread.setDaemon(true);
                    return thread;
                }, (task, pool) -> objectsDropped.incrementAndGet());
        this.threads.allowCoreThreadTimeOut(true);
        this.reader = (fileId, objectNumber, path) -> this.threads.execute(
                () -> readIntoPageCache(fileId, objectNumber, path));
    }

    /**
     * Notes a read of {@code length} bytes at {@code offset} of object {@code objectNumber} that returned
     * {@code stored} bytes, and reads ahead when it continues a stream.
     */
    void afterRead(String fileId, StripeLayout layout, long objectNumber, int offset, int length, int stored) {
        if (length < READ_BYTES_MIN || stored != length || offset + length != layout.objectSizeBytes()) {
            return;
        }
        long objectsAhead = Math.min(OBJECTS_AHEAD_MAX, bytesAhead / layout.objectSizeBytes());
        if (objectsAhead < 1) {
            return;
        }
        long step = layout.width();
        long from;
        long until;
        synchronized (streams) {
            Stream stream = streams.get(fileId);
            if (stream == null) {
                streams.put(fileId, new Stream(objectNumber));
                return;
            }
            long distance = Math.abs(objectNumber - stream.lastObject);
            if (distance == 0) {
                return; // the same object again: nothing new ahead
            }
            if (distance > STREAM_SPAN_OBJECTS * step) {
                stream.lastObject = objectNumber;
                stream.aheadUntilObject = objectNumber; // a new stream here: what was read ahead is behind or far
                return;
            }
            stream.lastObject = objectNumber;
            until = objectNumber + objectsAhead * step;
            from = Math.max(stream.aheadUntilObject, objectNumber) + step;
            if (from > until) {
                return;
            }
            stream.aheadUntilObject = until;
        }
        for (long object = from; object <= until; object += step) {
            reader.read(fileId, object, paths.objectPath(fileId, object));
        }
    }

    /**
     * Reads object {@code objectNumber} of {@code fileId} (its file {@code object}) into the page cache and remembers
     * it for {@link #takeReadAhead} when it was read whole.
     */
    void readIntoPageCache(String fileId, long objectNumber, Path object) {
        if (readIntoPageCache(object)) {
            synchronized (readWhole) {
                readWhole.put(new ObjectKey(fileId, objectNumber), Boolean.TRUE);
            }
        }
    }

    /**
     * Reads {@code object}'s file into the page cache without copying it anywhere; a missing file is skipped.
     * Returns whether the file was read to its end.
     */
    boolean readIntoPageCache(Path object) {
        try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ)) {
            long position = 0;
            long moved;
            while ((moved = channel.transferTo(position, Long.MAX_VALUE - position, devNull)) > 0) {
                position += moved;
            }
            objectsReadAhead.incrementAndGet();
            return true;
        } catch (NoSuchFileException e) {
            // past the file's end, or deleted meanwhile: nothing to read ahead
        } catch (IOException e) {
            LOG.debug("read-ahead of {} failed: {}", object, e.toString());
        }
        return false;
    }

    /**
     * Whether this read-ahead read the object whole into the page cache and no read took it since (then the caller's
     * read finds its pages cached, unless evicted meanwhile); forgets it, so each read-ahead is taken once.
     */
    boolean takeReadAhead(String fileId, long objectNumber) {
        synchronized (readWhole) {
            return readWhole.remove(new ObjectKey(fileId, objectNumber)) != null;
        }
    }

    /** Objects read into the page cache ahead of their streams so far. */
    long objectsReadAhead() {
        return objectsReadAhead.get();
    }

    /** Read-aheads dropped because the queue was full. */
    long objectsDropped() {
        return objectsDropped.get();
    }

    @Override
    public void close() {
        if (threads != null) {
            threads.shutdownNow();
        }
        try {
            if (devNull != null) {
                devNull.close();
            }
        } catch (IOException e) {
            LOG.debug("closing /dev/null failed: {}", e.toString());
        }
    }
}
