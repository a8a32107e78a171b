package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import com.sun.management.UnixOperatingSystemMXBean;
import com.sun.nio.file.ExtendedOpenOption;
import java.lang.management.ManagementFactory;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.qos.device.IoKind;

/**
 * A file's objects as files of the local file system:
 * {@code <root>/<hash hex 2>/<hash hex 2>/<escaped file id>/<object number>}; each file's
 * {@link FileMetadata} (size, truncate epoch) in a {@link KvStore} (RocksDB in {@code <root>/metadata}).
 *
 * <p>Concurrency: reads of a file, and writes to different objects of it, may run concurrently (the file's
 * size record is read, grown and stored under a per-file lock, so concurrent writes never lose a growth).
 * Callers order the rest (the storage stage's {@code FileAccessOrder}): two accesses of one object of which
 * one is a write, and {@link #truncate}, {@link #fsync}, {@link #deleteFile} and {@link #metadata} as seen by
 * a client, never run concurrently with other work on the file.
 *
 * <p>Durability: a write with {@code sync}, {@link #fsync}, {@link #truncate} and {@link #deleteFile} force
 * the object files, the new folder entries and the metadata (a synced KV write, atomic by the store's WAL)
 * before returning, so what they acknowledge survives a crash. Other writes reach the OS page cache and the
 * KV store's log, which survive a process crash but not a power loss.
 *
 * <p>Every object read and write passes through the {@link StorageDevice} (an emulated disk holds it for its
 * model's service time; the real disk adds nothing). With direct I/O (the calibration's choice) object files
 * are opened with O_DIRECT, bypassing the page cache; offsets, lengths and buffers must then be aligned to the
 * file system's block size.
 */
public final class ObjectStore implements ObjectStorage {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);
    /** Folder of the metadata store inside the root; not a two-hex-digit name, so no file folder clashes. */
    public static final String METADATA_FOLDER = "metadata";
    /** The hash folders' names, as {@link FileIds#hashFolders} makes them. */
    private static final Pattern HASH_FOLDER = Pattern.compile("[0-9a-f]{2}");

    private final Path root;
    private final KvStore metadataStore;
    /**
     * Files' size records, kept in memory; its {@link FileMetadataRecords#lockFor} guards the read-grow-store of a
     * file's record and the creation of its folder.
     */
    private final FileMetadataRecords records;
    private final boolean ownsMetadataStore;
    private final StorageDevice device;
    /**
     * Object files kept open between accesses unless the caller says otherwise (osd.storage.openFilesMax): 4096
     * covers 4 GiB of the default 1 MiB objects and 512 MiB of 128 KiB ones (with 512 and 128 KiB objects, the
     * benchmark's 256 MiB random file still opened and closed three objects in four). Never more than a quarter of
     * the process's descriptor limit ({@link #openObjectFilesBound}).
     */
    public static final int OPEN_OBJECT_FILES_MAX_DEFAULT = 4096;
    private final OpenObjectFiles openFiles;
    /**
     * Object files an {@link #fsync} forces at once. One after another, every force waits for its own journal commit
     * and disk flush: 4,096 objects (512 MiB of 128 KiB) took 22 s through the mount at load 28, so the client's
     * fsync of a large file timed out at 30 s. Forced together, the file system commits them in shared journal
     * transactions: 2,048 objects of 128 KiB on this machine's ext4 took 3.8 s with 4 threads, 0.8 s with 8, 1.0 s
     * with 16 and 0.8 s with 32 (load 28).
     */
    static final int FSYNC_PARALLELISM = 8;
    /** Forces queued for the fsync threads at most; beyond it the fsyncing thread forces the object itself. */
    private static final int FSYNC_QUEUE_CAPACITY = 1024;
    /** The fsync threads (osd-fsync-N, daemons), made on the first fsync of several objects; closed by close(). */
    private ThreadPoolExecutor fsyncThreads;
    /**
     * The objects written since they were last forced, per file: an fsync forces only those, and objects a stream wrote
     * to their end are forced in the background meanwhile ({@link #completesObject}).
     */
    private final DirtyObjects dirtyObjects;
    /**
     * Threads forcing completed objects in the background (osd-force-N), each a batch of {@link #FSYNC_PARALLELISM}
     * objects of one file at a time on the fsync threads. Forced one by one as each object completed, every force wrote
     * the inode table block and the folder again that the next object's creation had dirtied (this machine's ext4 has
     * no journal: an fsync writes the inode, and for a new file its folder, synchronously): more OSD CPU per MiB than
     * forcing them together at the end (tests/bench/fuse/README.md, "session 11").
     */
    static final int BACKGROUND_FORCE_THREADS = 2;
    /**
     * A write that ends at its object's end and is at least this long completes the object as a sequential stream's
     * write does, and its object is forced in the background: the file's fsync then finds it durable. Random 4 KiB
     * writes never qualify (their objects are forced by the fsync, once, however often they were written).
     */
    static final int STREAM_WRITE_BYTES_MIN = 128 * 1024;
    /**
     * Bytes one pwrite of a page-cache (not O_DIRECT) object write passes at most, its pieces ending on multiples of
     * this size within the object. The kernel sizes a new page-cache folio by the write that creates it (ext4 has
     * large folios since Linux 6.16), so one 1 MiB pwrite left the object in one 1 MiB folio, and every later 4 KiB
     * write into it walked the folio's 256 block buffers (ext4_block_write_begin, then block_commit_write) and
     * dirtied all of it. Profiled through the mount (random 4 KiB writes at QD32 into a file written sequentially in
     * 1 MiB first, as the benchmark prepares it): ext4_block_write_begin was 23.6 % of the OSD's CPU with 1 MiB
     * objects, 3.4 % with 128 KiB ones (51.5 against 37.0 us of OSD CPU per write).
     *
     * <p>With 16 threads of random 4 KiB pwrites into 256 files of 1 MiB on this machine's ext4
     * (tests/bench/fuse/page_cache_pieces.c), files written in 1 MiB pieces cost 10.8-12.6 us of CPU per write, in
     * 128 KiB pieces 5.2, 64 KiB 4.4, 32 KiB 3.5; writing them cost 314-356, 346-384, 392-412 and 455-482 us per
     * MiB. 64 KiB keeps most of the random gain for about 60 us more per MiB written (the OSD spends about 1,700 per
     * MiB). O_DIRECT writes go to the device as they are (no folios; one large request). Folios that read-ahead
     * creates are not affected: random writes into an object read cold first still meet large folios.
     */
    static final int WRITE_CALL_BYTES_MAX = 64 * 1024;
    /**
     * Writes of at least this many bytes whose offset, length and memory are aligned to the file system's block size
     * ({@link #directWriteAlignmentBytes}) bypass the page cache (O_DIRECT), on the real disk only. Profiled through
     * the mount (1 MiB O_DIRECT sequential writes at queue depth 8): the page-cache copy of every byte
     * (copy_folio_from_iter_atomic) was the largest frame of the OSD, 16.8 % of its CPU samples, and the whole
     * buffered pwrite 21 %; the kernel's write-back later wrote the same bytes again on its own threads, and the end
     * fsync waited for all of it with the CPUs idle. fio on this disk, 512 MiB in 1 MiB writes with a final fsync:
     * 0.76-0.89 s of kernel CPU buffered against 0.10 s with O_DIRECT. A direct write of a whole object leaves its
     * bytes on the device when it returns (a later fsync forces only the file system's metadata), and the cost moves
     * from the CPUs to the disk, which a 2-core host has to spare. Below this size (random 4 KiB writes, a stream's
     * unaligned tail, 128 KiB objects of reserved and replicated volumes) writes stay buffered: small direct writes
     * would each wait for the device, and the QoS model of buffered writes (BufferedWritePacing) is measured on
     * them. The page cache stays coherent: the kernel writes back and drops cached pages of the range first.
     */
    static final int DIRECT_WRITE_BYTES_MIN = 256 * 1024;
    /** Whether object files are opened with O_DIRECT (the calibration's choice); see {@link #WRITE_CALL_BYTES_MAX}. */
    private final boolean directIo;
    /** Sequential read-ahead across object files; null while off (see {@link #readAhead(long)}). */
    private volatile ObjectReadAhead readAhead;
    /**
     * The alignment a direct write needs (the file system's block size, as the JDK checks it), or 0 when writes never
     * go direct: every object file is O_DIRECT already ({@link #directIo}), an emulated device decides the device time
     * itself, or the file system refuses O_DIRECT (tmpfs before Linux 6.6); see {@link #DIRECT_WRITE_BYTES_MIN}.
     */
    private final int directWriteAlignmentBytes;
    /** As objectOptions with O_DIRECT, creating the file: a large aligned write ({@link #DIRECT_WRITE_BYTES_MIN}). */
    private static final Set<OpenOption> DIRECT_WRITE_OPTIONS = Set.of(StandardOpenOption.READ,
            StandardOpenOption.WRITE, StandardOpenOption.CREATE, ExtendedOpenOption.DIRECT);
    /** Writes that went to the disk with O_DIRECT since the store opened ({@link #DIRECT_WRITE_BYTES_MIN}). */
    private final AtomicLong directWrites = new AtomicLong();
    /**
     * Reads of at least this many bytes are left in the object's file for the transport to send from there
     * ({@link #readRegion}); smaller ones are copied into a buffer, which costs less than the extra system call and the
     * bookkeeping of a region for a 4 KiB read.
     */
    static final int REGION_READ_BYTES_MIN = 64 * 1024;
    /**
     * How long a write or truncate waits at most for the transfers of regions it would change; past it, it goes ahead
     * and logs (a region a caller never released must not stop the object's writes for ever). A transfer waits only
     * for its client to take the bytes, which a live client does in milliseconds.
     */
    static final long REGION_WAIT_MS = 10_000;
    /**
     * Regions handed out and not yet released, by object (keys of the ordinary channel): writes of the object and
     * truncates of the file wait for them, so a region's bytes stay as its read saw them; see {@link #readRegion}.
     * Guarded by itself; {@link #regionsOut} lets every write without a region out skip the lock.
     */
    private final Map<OpenObjectFiles.ObjectKey, List<ObjectRegion>> regionsInTransfer = new HashMap<>();
    private final AtomicInteger regionsOut = new AtomicInteger();
    /**
     * /dev/null, opened on the first region read: {@link #pageIn} sends a region's bytes there on the storage worker,
     * so that the network thread's later sendfile finds them in the page cache instead of waiting for the disk (a
     * cold 1 MiB region took up to 54 ms on the event loop, stalling every other connection of that loop). Guarded by
     * this store's monitor for its creation and closing.
     */
    private FileChannel pageInTarget;
    /** Regions paged in by {@link #pageIn} (the rest were read ahead, {@link ObjectReadAhead#takeReadAhead}). */
    private final AtomicLong regionPageIns = new AtomicLong();
    /** Object files are opened for reading and writing alike, so one cached channel serves both. */
    private final Set<OpenOption> objectOptions;
    /** As objectOptions, creating the file (0600, PrivateFiles; folders 0700) when missing. */
    private final Set<OpenOption> createOptions;

    /** Uses {@code metadataStore} for file metadata; the caller closes it. */
    public ObjectStore(Path root, KvStore metadataStore) throws IOException {
        this(root, metadataStore, StorageDevice.NONE);
    }

    /** As {@link #ObjectStore(Path, KvStore)}, with object data accesses passing through {@code device}. */
    public ObjectStore(Path root, KvStore metadataStore, StorageDevice device) throws IOException {
        this(root, metadataStore, device, OPEN_OBJECT_FILES_MAX_DEFAULT);
    }

    /** As above, keeping up to {@code openObjectFilesMax} object files open between accesses. */
    public ObjectStore(Path root, KvStore metadataStore, StorageDevice device, int openObjectFilesMax)
            throws IOException {
        this(root, new FileMetadataRecords(metadataStore), device, openObjectFilesMax);
    }

    /** As above, with the size records of a metadata store other layouts share ({@link RoleLayoutStorage}). */
    public ObjectStore(Path root, FileMetadataRecords records, StorageDevice device, int openObjectFilesMax)
            throws IOException {
        this(root, records, false, device, false, openObjectFilesMax);
    }

    private ObjectStore(Path root, FileMetadataRecords records, boolean ownsMetadataStore, StorageDevice device,
            boolean directIo, int openObjectFilesMax) throws IOException {
        this.root = root;
        this.metadataStore = records.store();
        this.records = records;
        this.ownsMetadataStore = ownsMetadataStore;
        this.device = device;
        this.directIo = directIo;
        this.objectOptions = directIo
                ? Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)
                : Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
        Set<OpenOption> create = new HashSet<>(objectOptions);
        create.add(StandardOpenOption.CREATE);
        this.createOptions = Set.copyOf(create);
        this.openFiles = new OpenObjectFiles(Math.min(openObjectFilesMax, openObjectFilesBound()));
        // Background forces only on the real disk: an emulated device's model charges every flush to the fsync.
        this.dirtyObjects = new DirtyObjects(this::forceAll,
                device == StorageDevice.NONE ? BACKGROUND_FORCE_THREADS : 0, FSYNC_PARALLELISM);
        PrivateFiles.folder(root);
        this.directWriteAlignmentBytes = directIo || device != StorageDevice.NONE ? 0 : directWriteAlignment(root);
    }

    /**
     * The alignment O_DIRECT needs in {@code folder} (the file system's block size, which the JDK checks), or 0 when
     * the file system refuses O_DIRECT (tmpfs before Linux 6.6), which a file opened once at start tells.
     */
    private static int directWriteAlignment(Path folder) {
        Path probe = null;
        try {
            long blockSize = Files.getFileStore(folder).getBlockSize();
            if (blockSize <= 0 || blockSize > DIRECT_WRITE_BYTES_MIN || Long.bitCount(blockSize) != 1) {
                return 0;
            }
            probe = Files.createTempFile(folder, ".direct-io-probe", "", PrivateFiles.fileAttribute());
            try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
                return (int) blockSize;
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.info("object files under {} take no O_DIRECT ({}): large writes go through the page cache", folder,
                    e.toString());
            return 0;
        } finally {
            if (probe != null) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException e) {
                    LOG.warn("cannot delete {}: {}", probe, e.toString());
                }
            }
        }
    }

    /**
     * At most a quarter of the process's file descriptor limit (the JVM raises the soft limit to the hard one), so
     * that several OSDs in one machine, their RocksDB files and their connections still find descriptors: an open
     * that fails with EMFILE would fail the request.
     */
    static int openObjectFilesBound() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            return (int) Math.max(0, Math.min(Integer.MAX_VALUE, unix.getMaxFileDescriptorCount() / 4));
        }
        return OPEN_OBJECT_FILES_MAX_DEFAULT;
    }

    /** Opens the objects under {@code root} with their RocksDB metadata store; {@link #close()} closes it. */
    public static ObjectStore open(Path root) throws IOException {
        return open(root, StorageDevice.NONE, false);
    }

    /**
     * As {@link #open(Path)}, with object data accesses passing through {@code device}, and with O_DIRECT object
     * files when {@code directIo}.
     */
    public static ObjectStore open(Path root, StorageDevice device, boolean directIo) throws IOException {
        return open(root, device, directIo, OPEN_OBJECT_FILES_MAX_DEFAULT);
    }

    /** As above, keeping up to {@code openObjectFilesMax} object files open between accesses (0: none). */
    public static ObjectStore open(Path root, StorageDevice device, boolean directIo, int openObjectFilesMax)
            throws IOException {
        PrivateFiles.folder(root);
        return new ObjectStore(root, new FileMetadataRecords(
                RocksKvStore.open(RocksKvOptions.defaults(root.resolve(METADATA_FOLDER)))), true,
                device, directIo, openObjectFilesMax);
    }

    /**
     * Reads the objects within {@code bytesAhead} after a sequential stream's reads into the page cache in the
     * background ({@link ObjectReadAhead}; osd.storage.readAheadBytes); 0 leaves it off. Not with O_DIRECT object files
     * (they bypass the page cache) nor an emulated device (its model would not see those reads): the caller's choice.
     * Called once, before the store serves.
     */
    public void readAhead(long bytesAhead) throws IOException {
        if (bytesAhead > 0 && !directIo) {
            readAhead = new ObjectReadAhead(this::objectPath, bytesAhead);
        }
    }

    /** Whether {@link #readAhead(long)} turned the read-ahead on. */
    public boolean readsAhead() {
        return readAhead != null;
    }

    @Override
    public void close() {
        ObjectReadAhead ahead = readAhead;
        if (ahead != null) {
            ahead.close();
        }
        synchronized (this) {
            if (fsyncThreads != null) {
                fsyncThreads.shutdown();
            }
        }
        synchronized (this) {
            if (pageInTarget != null) {
                try {
                    pageInTarget.close();
                } catch (IOException e) {
                    LOG.debug("closing /dev/null failed: {}", e.toString());
                }
            }
        }
        dirtyObjects.close();
        openFiles.close();
        if (ownsMetadataStore) {
            metadataStore.close();
        }
    }

    @Override
    public Path root() {
        return root;
    }

    /** The folder holding a file's objects (it may not exist). */
    public Path fileFolder(String fileId) {
        String[] hash = FileIds.hashFolders(fileId);
        return root.resolve(hash[0]).resolve(hash[1]).resolve(FileIds.escape(fileId));
    }

    /** Whether the object's file is held open between accesses (then it exists here); no file system access. */
    boolean holdsOpen(String fileId, long objectNumber) {
        return openFiles.contains(fileId, objectNumber);
    }

    public Path objectPath(String fileId, long objectNumber) {
        return fileFolder(fileId).resolve(Long.toString(objectNumber));
    }

    /**
     * See {@link ObjectStorage#read(String, StripeLayout, long, int, int, ByteBuffer)}. The storage stage
     * passes a pooled direct buffer that the transport then sends: the data moves kernel → buffer → socket,
     * without a zero-filled heap array per object and the JDK's bounce copy into a direct buffer.
     */
    @Override
    public int read(String fileId, StripeLayout layout, long objectNumber, int offset, int length,
            ByteBuffer target) throws IOException {
        layout.requireWithin(objectNumber, offset, length);
        if (target.remaining() < length) {
            throw new IllegalArgumentException("read buffer has " + target.remaining() + " bytes left, "
                    + length + " needed");
        }
        long completionNanos = length == 0 ? 0 : device.begin(fileId, layout.localObjectIndex(objectNumber),
                layout.objectSizeBytes(), offset, length, IoKind.READ);
        OpenObjectFiles.Handle handle = null;
        try {
            handle = openFiles.acquire(fileId, objectNumber,
                    () -> FileChannel.open(objectPath(fileId, objectNumber), objectOptions));
            FileChannel channel = handle.channel();
            // No size query first (an fstat per read): a read at the object's end is short, and the next says so.
            ByteBuffer window = target.slice().limit(length);
            while (window.hasRemaining()) {
                if (channel.read(window, offset + (long) window.position()) < 0) {
                    break; // the object's end
                }
            }
            target.position(target.position() + window.position());
            ObjectReadAhead ahead = readAhead;
            if (ahead != null) {
                ahead.afterRead(fileId, layout, objectNumber, offset, length, window.position());
            }
            return window.position();
        } catch (NoSuchFileException e) {
            return 0;
        } finally {
            if (handle != null) {
                openFiles.release(handle);
            }
            device.end(completionNanos);
        }
    }

    /**
     * See {@link ObjectStorage#readRegion}: a read of at least {@link #REGION_READ_BYTES_MIN} stored bytes on the real
     * disk with page-cache object files. Not with O_DIRECT object files (sendfile goes through the page cache) nor an
     * emulated device (its model must see every access and hold it for its service time, which a transfer on the
     * network thread cannot). The region's length is the stored length now (an fstat: the read's framing needs it
     * before the transfer), and it holds the object's cached channel, so no eviction or truncate closes it under the
     * transfer; writes of the object and truncates of the file wait for its release ({@link #awaitRegions}), so a
     * reply never carries bytes the read did not see, nor ends early. The caller's ordering (the storage stage's
     * FileAccessOrder) runs no write of the object until this returns, so the region is registered before any can.
     */
    @Override
    public ObjectRegion readRegion(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
            throws IOException {
        if (length < REGION_READ_BYTES_MIN || directIo || device != StorageDevice.NONE) {
            return null;
        }
        layout.requireWithin(objectNumber, offset, length);
        OpenObjectFiles.Handle handle;
        try {
            handle = openFiles.acquire(fileId, objectNumber,
                    () -> FileChannel.open(objectPath(fileId, objectNumber), objectOptions));
        } catch (NoSuchFileException e) {
            return null; // nothing stored: read() answers it
        }
        try {
            long stored = Math.min(length, handle.channel().size() - offset);
            if (stored < REGION_READ_BYTES_MIN) {
                openFiles.release(handle);
                return null; // short: cheaper copied (and none at all past the object's end)
            }
            ObjectReadAhead ahead = readAhead;
            if (ahead == null || !ahead.takeReadAhead(fileId, objectNumber)) {
                pageIn(handle.channel(), offset, stored); // a stream's objects were paged in by the read-ahead
            }
            OpenObjectFiles.ObjectKey key = new OpenObjectFiles.ObjectKey(fileId, objectNumber, false);
            ObjectRegion region = new ObjectRegion(handle.channel(), offset, stored, () -> {
                regionReleased(key);
                openFiles.release(handle);
            });
            synchronized (regionsInTransfer) {
                regionsInTransfer.computeIfAbsent(key, object -> new ArrayList<>(1)).add(region);
                regionsOut.incrementAndGet();
            }
            if (ahead != null) {
                ahead.afterRead(fileId, layout, objectNumber, offset, length, (int) stored);
            }
            return region;
        } catch (IOException | RuntimeException e) {
            openFiles.release(handle);
            throw e;
        }
    }

    /**
     * Brings [offset, offset + count) of {@code channel} into the page cache on the calling (storage) thread: sendfile
     * to /dev/null moves no bytes through user space, and pages already cached cost only the walk over them. A region
     * evicted again before its transfer is still sent correctly, only with the disk wait on the network thread.
     */
    private void pageIn(FileChannel channel, long offset, long count) throws IOException {
        FileChannel target;
        synchronized (this) {
            if (pageInTarget == null) {
                pageInTarget = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
            }
            target = pageInTarget;
        }
        regionPageIns.incrementAndGet();
        long position = offset;
        long end = offset + count;
        while (position < end) {
            long moved = channel.transferTo(position, end - position, target);
            if (moved <= 0) {
                break; // at the file's end (a concurrent truncate is excluded by the caller's ordering)
            }
            position += moved;
        }
    }

    /** Regions paged in on the reading thread so far. */
    long regionPageIns() {
        return regionPageIns.get();
    }

    /** The read-ahead, null while off (tests drive it directly). */
    ObjectReadAhead objectReadAhead() {
        return readAhead;
    }

    /** Regions of this store not yet released. */
    int regionsOut() {
        return regionsOut.get();
    }

    private void regionReleased(OpenObjectFiles.ObjectKey key) {
        synchronized (regionsInTransfer) {
            List<ObjectRegion> regions = regionsInTransfer.get(key);
            regions.remove(regions.size() - 1); // any one: the list only counts the object's regions and their threads
            if (regions.isEmpty()) {
                regionsInTransfer.remove(key);
            }
            regionsOut.decrementAndGet();
            regionsInTransfer.notifyAll();
        }
    }

    /**
     * Waits until no region of the objects {@code affected} selects is out, so that a change never reaches bytes a
     * reply is still sending (see {@link #readRegion}). Two exceptions, both logged: a region sent by this very thread
     * (a small write run on the network thread that sends it: waiting could never end) and a wait past
     * {@link #REGION_WAIT_MS}; then the change goes ahead, and a reply sending the changed range carries some of its
     * new bytes, or, after a truncate, fails and closes its connection (the transport never sends a record shorter
     * than its framing; the client retries).
     */
    private void awaitRegions(Predicate<OpenObjectFiles.ObjectKey> affected, String change) throws IOException {
        if (regionsOut.get() == 0) {
            return;
        }
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REGION_WAIT_MS);
        synchronized (regionsInTransfer) {
            while (true) {
                boolean waitFor = false;
                for (Map.Entry<OpenObjectFiles.ObjectKey, List<ObjectRegion>> entry : regionsInTransfer.entrySet()) {
                    if (!affected.test(entry.getKey())) {
                        continue;
                    }
                    for (ObjectRegion region : entry.getValue()) {
                        if (region.transferredByCurrentThread()) {
                            LOG.warn("{} of {} runs on the thread that sends a read of it: not waiting for it", change,
                                    entry.getKey());
                        } else {
                            waitFor = true;
                        }
                    }
                }
                long leftNanos = deadlineNanos - System.nanoTime();
                if (!waitFor) {
                    return;
                }
                if (leftNanos <= 0) {
                    LOG.warn("{} waited {} ms for reads of the file still being sent; going ahead", change,
                            REGION_WAIT_MS);
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(regionsInTransfer, leftNanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException(change + " interrupted while waiting for reads being sent");
                }
            }
        }
    }

    @Override
    public WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
            int truncateEpoch, boolean sync) throws IOException {
        int length = data.remaining();
        layout.requireWithin(objectNumber, offset, length);
        if (regionsOut.get() > 0) {
            awaitRegions(key -> key.objectNumber() == objectNumber && key.fileId().equals(fileId),
                    "a write of object " + objectNumber + " of file " + fileId);
        }
        Object fileLock = records.lockFor(fileId);
        // Set by the opener, which runs only when the object's file is not open already (then it exists).
        boolean[] objectCreated = {false};
        long completionNanos = length == 0 ? 0 : device.begin(fileId, layout.localObjectIndex(objectNumber),
                layout.objectSizeBytes(), offset, length, IoKind.WRITE, sync);
        // A synced write forces its own object; any other is marked for the file's next fsync.
        DirtyObjects.FileMarks marks = sync ? null
                : dirtyObjects.beginWrite(fileId, () -> Files.isDirectory(fileFolder(fileId)));
        OpenObjectFiles.Handle handle = null;
        try {
            if (writesDirect(offset, data)) {
                writeDirect(fileId, objectNumber, offset, data, sync, objectCreated);
            } else {
                handle = openFiles.acquire(fileId, objectNumber,
                        () -> openForWrite(fileId, objectNumber, createOptions, sync, objectCreated));
                FileChannel channel = handle.channel();
                if (directIo) {
                    writeFully(channel, data, offset);
                } else {
                    writeInPieces(channel::write, data, offset, WRITE_CALL_BYTES_MAX);
                }
                if (sync) {
                    channel.force(true);
                }
            }
        } finally {
            if (handle != null) {
                openFiles.release(handle);
            }
            if (marks != null) {
                dirtyObjects.endWrite(marks, objectNumber);
            }
            device.end(completionNanos);
        }
        if (sync && objectCreated[0]) {
            forceFile(fileFolder(fileId)); // a new object file is durable only once its folder entry is
        }
        WriteOutcome outcome;
        synchronized (fileLock) {
            FileMetadata before = records.get(fileId);
            FileMetadata after = before.afterWrite(layout.objectStartOffset(objectNumber) + offset + length, length,
                    truncateEpoch);
            boolean sizeGrew = after.sizeBytes() > before.sizeBytes();
            if (!after.equals(before)) {
                records.store(fileId, after, sync ? Durability.SYNC : Durability.BUFFERED);
            }
            outcome = new WriteOutcome(sizeGrew, after);
        }
        if (!sync && completesObject(layout, offset, length)) {
            dirtyObjects.completed(fileId, objectNumber);
        }
        return outcome;
    }

    /**
     * Whether a write completes its object as a sequential stream's does: it ends at the object's end and is at least
     * {@link #STREAM_WRITE_BYTES_MIN} long (the whole object when objects are smaller).
     */
    static boolean completesObject(StripeLayout layout, int offset, int length) {
        int objectSizeBytes = layout.objectSizeBytes();
        return offset + length == objectSizeBytes && length >= Math.min(STREAM_WRITE_BYTES_MIN, objectSizeBytes)
                && length > 0;
    }

    /**
     * Opens (creating it, 0600, and its folders, 0700) the object's file with {@code options}. With {@code sync}, sets
     * {@code objectCreated[0]} when the file did not exist, and forces a new folder before any other write of the file
     * can see it and rely on its entry being durable. Without it, the existence is not looked up: on Java 17 a stat of
     * a path that does not exist throws and catches a NoSuchFileException, once per new object of a sequential write.
     *
     * <p>A file with an object file in the open-file cache has its folder (a deletion or truncation drops the file's
     * channels first), so the folder is not looked up then: a sequential write's stat of its folder per new object
     * (Files.isDirectory and building the path, tests/bench/fuse/README.md, session 18). Should the folder have been
     * removed by other means meanwhile, the open fails and the folder is made as for the file's first object.
     */
    private FileChannel openForWrite(String fileId, long objectNumber, Set<OpenOption> options, boolean sync,
            boolean[] objectCreated) throws IOException {
        Path folder = fileFolder(fileId);
        Path object = folder.resolve(Long.toString(objectNumber));
        if (sync) { // only a synced write forces the folder entry of an object it created (write)
            objectCreated[0] = !Files.exists(object);
        }
        if (openFiles.holdsFile(fileId)) {
            try {
                return FileChannel.open(object, options, PrivateFiles.fileAttribute());
            } catch (NoSuchFileException e) {
                // the folder went by other means: made below
            }
        }
        synchronized (records.lockFor(fileId)) {
            if (!Files.isDirectory(folder)) {
                PrivateFiles.createFolders(folder);
                if (sync) {
                    forceFolders(folder);
                }
            }
        }
        return FileChannel.open(object, options, PrivateFiles.fileAttribute());
    }

    /** Whether this write goes to the disk with O_DIRECT; see {@link #DIRECT_WRITE_BYTES_MIN}. */
    private boolean writesDirect(long offset, ByteBuffer data) {
        int alignment = directWriteAlignmentBytes;
        int length = data.remaining();
        return alignment > 0 && length >= DIRECT_WRITE_BYTES_MIN && offset % alignment == 0 && length % alignment == 0
                && data.isDirect() && data.alignmentOffset(data.position(), alignment) == 0;
    }

    /**
     * Writes {@code data} through the object's O_DIRECT channel, cached beside its ordinary one in {@link #openFiles}:
     * an object written in several direct pieces (objects larger than the client's writes) opens it once, and its
     * close moves out of the write to the cache's eviction or the file's truncation or deletion. Only the writes
     * {@link #writesDirect} admits use it, so it never sees unaligned I/O.
     */
    private void writeDirect(String fileId, long objectNumber, long offset, ByteBuffer data, boolean sync,
            boolean[] objectCreated) throws IOException {
        OpenObjectFiles.Handle handle = openFiles.acquireDirect(fileId, objectNumber,
                () -> openForWrite(fileId, objectNumber, DIRECT_WRITE_OPTIONS, sync, objectCreated));
        try {
            writeFully(handle.channel(), data, offset);
            if (sync) {
                handle.channel().force(true);
            }
        } finally {
            openFiles.release(handle);
        }
        directWrites.incrementAndGet();
    }

    /** The marks of objects written since they were last forced (tests). */
    DirtyObjects dirtyObjects() {
        return dirtyObjects;
    }

    /** Writes that went to the disk with O_DIRECT since the store opened ({@link #DIRECT_WRITE_BYTES_MIN}). */
    long directWrites() {
        return directWrites.get();
    }

    /** Object files opened for reads and writes since the store opened (not counting the open-file cache's hits). */
    long objectFilesOpened() {
        return openFiles.openedCount();
    }

    private static void writeFully(FileChannel channel, ByteBuffer data, long position) throws IOException {
        while (data.hasRemaining()) {
            position += channel.write(data, position);
        }
    }

    /** One positional write call (FileChannel#write(ByteBuffer, long)): returns the bytes it wrote. */
    @FunctionalInterface
    interface PositionalWriter {
        int write(ByteBuffer source, long position) throws IOException;
    }

    /**
     * Writes all of {@code data} at {@code position} with calls of at most {@code pieceBytesMax} bytes, each ending
     * on a multiple of it (or at the data's end), so that no page-cache folio the writes create spans more than one
     * piece; see {@link #WRITE_CALL_BYTES_MAX}. Short writes continue where they stopped. Consumes {@code data}.
     */
    static void writeInPieces(PositionalWriter writer, ByteBuffer data, long position, int pieceBytesMax)
            throws IOException {
        if (pieceBytesMax <= 0) {
            throw new IllegalArgumentException("write piece size must be positive, got " + pieceBytesMax);
        }
        while (data.hasRemaining()) {
            long pieceEnd = (position / pieceBytesMax + 1) * pieceBytesMax;
            int length = (int) Math.min(data.remaining(), pieceEnd - position);
            int written = writer.write(data.slice(data.position(), length), position);
            data.position(data.position() + written);
            position += written;
        }
    }

    /** See {@link ObjectStorage#truncate}; the extension is sparse. */
    @Override
    public FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
            throws IOException {
        if (newSizeBytes < 0) {
            throw new IllegalArgumentException("new file size must not be negative: " + newSizeBytes);
        }
        if (regionsOut.get() > 0) {
            awaitRegions(key -> key.fileId().equals(fileId), "a truncate of file " + fileId);
        }
        openFiles.forget(fileId); // objects beyond the new size go; no cached channel may outlive them
        Path folder = fileFolder(fileId);
        boolean created = !Files.isDirectory(folder);
        PrivateFiles.createFolders(folder);
        long lastObject = newSizeBytes == 0 ? -1 : (newSizeBytes - 1) / layout.objectSizeBytes();
        long lastObjectLength = newSizeBytes - Math.max(0, lastObject) * layout.objectSizeBytes();
        for (long objectNumber : storedObjects(fileId)) {
            Path object = folder.resolve(Long.toString(objectNumber));
            if (objectNumber > lastObject) {
                Files.deleteIfExists(object);
            } else if (objectNumber == lastObject) {
                try (FileChannel channel = FileChannel.open(object, StandardOpenOption.WRITE)) {
                    if (channel.size() > lastObjectLength) {
                        channel.truncate(lastObjectLength);
                    }
                    channel.force(true);
                }
            }
        }
        if (lastObject >= 0 && layout.holds(lastObject)) {
            extendTo(folder.resolve(Long.toString(lastObject)), lastObjectLength);
        }
        dirtyObjects.truncated(fileId, lastObject);
        forceFolders(folder);
        if (created) {
            dirtyObjects.createdDurably(fileId);
        }
        synchronized (records.lockFor(fileId)) {
            FileMetadata after = records.get(fileId).afterTruncate(newSizeBytes, truncateEpoch);
            records.store(fileId, after, Durability.SYNC);
            return after;
        }
    }

    /**
     * Forces the file's objects written since they were last forced (every object of a file written before the store
     * opened, {@link DirtyObjects}), its folders and the metadata store's log to stable storage; throws also when a
     * background force of one of its objects failed since its last fsync.
     */
    @Override
    public void fsync(String fileId) throws IOException {
        long completionNanos = device.flush(fileId);
        try {
            Path folder = fileFolder(fileId);
            if (Files.isDirectory(folder)) {
                dirtyObjects.fsync(fileId, () -> storedObjects(fileId), objects -> forceAll(fileId, objects));
                forceFolders(folder);
            }
            metadataStore.sync();
        } finally {
            device.end(completionNanos);
        }
    }

    /**
     * Forces the objects {@code objectNumbers} of the file, {@link #FSYNC_PARALLELISM} at a time, and returns once every
     * one is on stable storage; throws the first failure (after every force has ended, so none runs on after the caller
     * was answered).
     */
    private void forceAll(String fileId, List<Long> objectNumbers) throws IOException {
        Path folder = fileFolder(fileId);
        if (objectNumbers.size() <= 1) {
            for (long objectNumber : objectNumbers) {
                forceObject(fileId, folder, objectNumber);
            }
            return;
        }
        ThreadPoolExecutor threads = fsyncThreads();
        List<Future<?>> forces = new ArrayList<>(objectNumbers.size());
        for (long objectNumber : objectNumbers) {
            forces.add(threads.submit(() -> {
                forceObject(fileId, folder, objectNumber);
                return null;
            }));
        }
        IOException failure = null;
        boolean interrupted = false;
        for (Future<?> force : forces) {
            while (true) {
                try {
                    force.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the forces run on: wait for them, then keep the interrupt
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof IOException io ? io
                                : new IOException("cannot force an object of " + folder + ": " + e.getCause(), e.getCause());
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Forces one object: through its channel in the open-file cache when it is there (the write that completed the
     * object left it there), else through a channel opened for the purpose. Opening the object again was one of the
     * OSD's two openat per MiB of a sequential write (tests/bench/fuse/README.md, session 12). Either way the file's
     * data and inode are forced (fsync does not depend on how the descriptor was opened, O_DIRECT or not).
     */
    private void forceObject(String fileId, Path folder, long objectNumber) throws IOException {
        OpenObjectFiles.Handle cached = openFiles.acquireCached(fileId, objectNumber);
        if (cached == null) {
            forceFile(folder.resolve(Long.toString(objectNumber)));
            return;
        }
        try {
            cached.channel().force(true);
        } finally {
            openFiles.release(cached);
        }
    }

    /**
     * The fsync threads: a bounded queue, and when it is full (or the store closed) the submitting thread forces the
     * object itself, so a burst of fsyncs never fails for want of room and never holds more than the queue's tasks.
     */
    private synchronized ThreadPoolExecutor fsyncThreads() {
        if (fsyncThreads == null) {
            AtomicInteger number = new AtomicInteger();
            fsyncThreads = new ThreadPoolExecutor(FSYNC_PARALLELISM, FSYNC_PARALLELISM, 30, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(FSYNC_QUEUE_CAPACITY), task -> {
                        Thread thread = new Thread(task, "osd-fsync-" + number.getAndIncrement());
                        thread.setDaemon(true);
                        return thread;
                    }, (force, executor) -> force.run()); // also after close(): the caller's future always completes
            fsyncThreads.allowCoreThreadTimeOut(true); // an idle OSD keeps none
        }
        return fsyncThreads;
    }

    @Override
    public FileMetadata metadata(String fileId) throws IOException {
        return records.get(fileId);
    }

    @Override
    public List<Long> storedObjects(String fileId) throws IOException {
        List<Long> objects = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fileFolder(fileId))) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
                    objects.add(Long.parseLong(name));
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        objects.sort(null);
        return objects;
    }

    @Override
    public boolean exists(String fileId) {
        return Files.isDirectory(fileFolder(fileId));
    }

    /** See {@link ObjectStorage#deleteFile(String, WriteBatch, Durability)}; object folder entries are fsynced. */
    @Override
    public void deleteFile(String fileId, WriteBatch together, Durability durability) throws IOException {
        openFiles.forget(fileId);
        dirtyObjects.deleted(fileId);
        Path folder = fileFolder(fileId);
        // Most deleted files have no folder here (never written, or a stripe position a small file never reached):
        // a stat answers that without the directory stream's NoSuchFileException and its stack trace (3.9 % of the
        // OSD's CPU during an unlink loop, session 14). The storage stage runs no other work of the file meanwhile
        // (FileAccessOrder), so no folder appears after the check; the catch stays for one removed by other means.
        if (exists(fileId)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path entry : entries) {
                    Files.deleteIfExists(entry);
                }
                Files.deleteIfExists(folder);
                forceFile(folder.getParent());
            } catch (NoSuchFileException e) {
                // gone meanwhile
            }
        }
        // Objects or none, the size record may exist; it goes in one batch with `together`.
        synchronized (records.lockFor(fileId)) {
            try {
                metadataStore.write(appendTo(new WriteBatch().delete(FileMetadata.key(fileId)), together), durability);
            } catch (KvException e) {
                throw new IOException("cannot delete the metadata of file " + fileId + ": " + e.getMessage(), e);
            } finally {
                records.forget(fileId); // deleted, or unknown after a failed write: read back on demand
            }
        }
    }

    /**
     * See {@link ObjectStorage#deleteFilesWithoutObjects}: every file's size record and {@code together} in one atomic
     * batch, so a crash leaves all of them or none. No folder to remove (the caller found none, and no work of these
     * files runs meanwhile, so none appears), hence no stat here. The records are forgotten after the write, each under
     * its file's lock: a load of a record that raced the write (it holds that lock from its read until it remembers
     * the record) is forgotten again, so memory matches the store ({@link FileMetadataRecords}' invariant).
     */
    @Override
    public void deleteFilesWithoutObjects(List<String> fileIds, WriteBatch together, Durability durability)
            throws IOException {
        WriteBatch batch = new WriteBatch();
        for (String fileId : fileIds) {
            openFiles.forget(fileId);
            dirtyObjects.deleted(fileId);
            batch.delete(FileMetadata.key(fileId));
        }
        try {
            metadataStore.write(appendTo(batch, together), durability);
        } catch (KvException e) {
            throw new IOException("cannot delete the metadata of " + fileIds.size() + " files: " + e.getMessage(), e);
        } finally {
            for (String fileId : fileIds) {
                synchronized (records.lockFor(fileId)) {
                    records.forget(fileId); // deleted, or unknown after a failed write: read back on demand
                }
            }
        }
    }

    /** Adds the operations of {@code more} to {@code batch}, in their order. */
    private static WriteBatch appendTo(WriteBatch batch, WriteBatch more) {
        for (WriteBatch.Operation operation : more.operations()) {
            if (operation instanceof WriteBatch.Put put) {
                batch.put(put.key(), put.value());
            } else {
                batch.delete(operation.key());
            }
        }
        return batch;
    }

    /** Every file folder under the hash folders is a stored file. */
    @Override
    public boolean forEachStoredFile(StoredFileVisitor visitor) throws IOException {
        for (Path first : folders(root, true)) {
            for (Path second : folders(first, true)) {
                // Streamed, not collected: a hash folder of a huge volume may hold very many files.
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(second, Files::isDirectory)) {
                    for (Path fileFolder : entries) {
                        if (!visitor.visit(FileIds.unescape(fileFolder.getFileName().toString()))) {
                            return false;
                        }
                    }
                } catch (NoSuchFileException gone) {
                    // deleted since it was listed
                }
            }
        }
        return true;
    }

    /** The sub-folders of {@code parent} (only hash-folder names when {@code hashOnly}); none if it is gone. */
    private static Set<Path> folders(Path parent, boolean hashOnly) throws IOException {
        Set<Path> found = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry)
                        && (!hashOnly || HASH_FOLDER.matcher(entry.getFileName().toString()).matches())) {
                    found.add(entry);
                }
            }
        } catch (NoSuchFileException gone) {
            return found;
        }
        return found;
    }

    @Override
    public KvStore metadataStore() {
        return metadataStore;
    }


    private static void extendTo(Path object, long lengthBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(object, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                PrivateFiles.fileAttribute())) {
            if (channel.size() < lengthBytes) {
                // Writing the last byte makes the file exactly lengthBytes long; the gap stays sparse.
                channel.write(ByteBuffer.wrap(new byte[1]), lengthBytes - 1);
            }
            channel.force(true);
        }
    }

    /** Makes the file's folder entry and the hash folders' entries durable (new folders need this). */
    private void forceFolders(Path fileFolder) throws IOException {
        for (Path folder = fileFolder; folder != null && folder.startsWith(root); folder = folder.getParent()) {
            forceFile(folder);
        }
    }

    static void forceFile(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
