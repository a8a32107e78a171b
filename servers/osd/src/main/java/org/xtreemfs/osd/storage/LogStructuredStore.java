package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.LogStructuredLayout;

/**
 * The log-structured object layout (FAST's tail replica): every write is appended, in write order, as a
 * {@link LogRecord} to the head segment of a log ({@code <root>/log/<segment number>.seg}), and a {@link LogIndex}
 * maps (file, object, byte range) to log addresses; reads are served through the index. Random writes thus reach
 * the disk as one sequential stream, and a synced write costs one fdatasync of the head segment.
 *
 * <p><b>Addresses.</b> {@code segment << 40 | offset in segment}. Within a segment, appends are placed by
 * {@link LogStructuredLayout} (the one rule of "consecutive writes land back to back", shared with the simulator
 * and the device models); where it would wrap, the store seals the segment (forces it) and starts the next one.
 *
 * <p><b>Persistence.</b> The index lives in memory and in the metadata store (keys {@link #INDEX_PREFIX} + file id
 * + NUL + object number), together with the address up to which the log is reflected in it ({@link #APPLIED_KEY})
 * and each file's {@link FileMetadata} (key: the file id, as in the conventional layout), written in one atomic
 * batch per write without waiting for the disk. A synced write waits only for the log. On open, records after the
 * applied address are replayed from the log in order (the log is self-describing); the first record whose magic,
 * length or CRC does not hold ends the log: it is a torn append from a crash, cut off and never served (in a
 * sealed segment it is corruption and the open fails). Index extents pointing past the valid log (an index write
 * that reached the disk before its record did) are dropped. Truncate, delete and compaction force the log before
 * their index batch, so a durable index never names data that is not.
 *
 * <p><b>Compaction.</b> Overwrites, truncates and deletes leave dead bytes in sealed segments.
 * {@link #needsCompaction()} holds while the dead bytes of sealed segments exceed {@code deadPercentMax} of their
 * size; {@link #compact(long)} then copies the live extents of the sealed segment with most dead bytes to the head,
 * a record at a time within a byte budget (the caller, {@link LogCompactor}, meters the budget at a configured rate
 * so compaction cannot starve foreground I/O), and deletes the segment once its last record is done and the moved
 * index is durable. Space bound: the log holds its live bytes, at most {@code deadPercentMax} % dead bytes in sealed
 * segments once the compactor has caught up, plus the head segment.
 *
 * <p><b>Concurrency.</b> One read-write lock: reads share it, writes, truncates, deletes and compaction steps take it
 * exclusively; a synced write forces the log after releasing it (concurrent writers share fsyncs).
 */
public final class LogStructuredStore implements ObjectStorage {
    public static final String LOG_FOLDER = "log";
    static final byte[] INDEX_PREFIX = {0, 'L', 'O', 'G', 'X', 0};
    static final byte[] APPLIED_KEY = {0, 'L', 'O', 'G', 'P', 0};
    private static final int SEGMENT_SHIFT = 40;
    private static final long OFFSET_MASK = (1L << SEGMENT_SHIFT) - 1;
    private static final String SEGMENT_SUFFIX = ".seg";
    /** The emulated device sees the log as a file of objects of this size (the calibration's request size). */
    private static final int DEVICE_OBJECT_BYTES = 128 * 1024;
    private static final byte[] ZEROS = new byte[64 * 1024];
    private static final long PREALLOCATION_STEP_BYTES = 1L << 20;

    /** Settings of the layout. */
    public record Options(long segmentBytes, int deadPercentMax) {
        public Options {
            if (segmentBytes < 4096 || segmentBytes > OFFSET_MASK) {
                throw new IllegalArgumentException("segment size must be in [4096, 2^40) bytes, was " + segmentBytes);
            }
            if (deadPercentMax < 1 || deadPercentMax > 95) {
                throw new IllegalArgumentException("dead percentage must be in [1, 95], was " + deadPercentMax);
            }
        }

        public static Options defaults() {
            return new Options(64L << 20, 25);
        }
    }

    /** Sizes of the log: bytes of every segment, live data bytes, dead bytes of sealed segments, bytes compacted. */
    public record Statistics(int segments, long logBytes, long liveBytes, long sealedDeadBytes, long sealedBytes,
            long compactedBytes) {}

    private static final class Segment {
        final long number;
        final Path path;
        final FileChannel channel;
        long sizeBytes;
        long liveBytes;
        /** The file's size: the records' bytes plus zeros written ahead ({@link #preallocate}); head only. */
        long preallocatedBytes;

        Segment(long number, Path path, FileChannel channel, long sizeBytes) {
            this.number = number;
            this.path = path;
            this.channel = channel;
            this.sizeBytes = sizeBytes;
            this.preallocatedBytes = sizeBytes;
        }
    }

    private final Path root;
    private final Path logFolder;
    private final KvStore metadataStore;
    /** Files' size records (shared with the conventional layout under {@link RoleLayoutStorage}). */
    private final FileMetadataRecords records;
    private final boolean ownsMetadataStore;
    private final StorageDevice device;
    private final Options options;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final LogIndex index = new LogIndex();
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private Segment head;
    private LogStructuredLayout headLayout;
    private long compactingSegment = -1;
    private long compactingOffset;
    private long compactedBytes;
    private boolean closed;
    /** Log address below which every append is forced to disk (group commit: one fdatasync covers all before it). */
    private final java.util.concurrent.atomic.AtomicLong durableEndAddress = new java.util.concurrent.atomic.AtomicLong();
    /** One forcing thread at a time; the others find their append already covered when it is done. */
    private final Object forceMonitor = new Object();

    private LogStructuredStore(Path root, FileMetadataRecords records, boolean ownsMetadataStore,
            StorageDevice device, Options options) {
        this.root = root;
        this.logFolder = root.resolve(LOG_FOLDER);
        this.metadataStore = records.store();
        this.records = records;
        this.ownsMetadataStore = ownsMetadataStore;
        this.device = device;
        this.options = options;
    }

    /** Opens (or creates) the log under {@code root} with its own RocksDB metadata store; recovers after a crash. */
    public static LogStructuredStore open(Path root, StorageDevice device, Options options) throws IOException {
        PrivateFiles.folder(root);
        KvStore store = RocksKvStore.open(RocksKvOptions.defaults(root.resolve(ObjectStore.METADATA_FOLDER)));
        try {
            return open(root, new FileMetadataRecords(store), true, device, options);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** As {@link #open(Path, StorageDevice, Options)} on a metadata store the caller owns and closes. */
    public static LogStructuredStore open(Path root, KvStore metadataStore, StorageDevice device, Options options)
            throws IOException {
        return open(root, new FileMetadataRecords(metadataStore), device, options);
    }

    /** As above, with the size records of a metadata store other layouts share ({@link RoleLayoutStorage}). */
    public static LogStructuredStore open(Path root, FileMetadataRecords records, StorageDevice device,
            Options options) throws IOException {
        PrivateFiles.folder(root);
        return open(root, records, false, device, options);
    }

    private static LogStructuredStore open(Path root, FileMetadataRecords records, boolean owns,
            StorageDevice device, Options options) throws IOException {
        LogStructuredStore store = new LogStructuredStore(root, records, owns, device, options);
        try {
            store.recover();
        } catch (IOException | RuntimeException e) {
            store.closeSegments();
            throw e;
        }
        return store;
    }

    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                // A clean close leaves the head exact: its zeros written ahead are cut off.
                head.channel.truncate(head.sizeBytes);
                head.channel.force(true);
            } catch (IOException e) {
                // closing anyway: what was acknowledged as durable was forced when it was acknowledged
            }
            closeSegments();
        } finally {
            lock.writeLock().unlock();
        }
        if (ownsMetadataStore) {
            metadataStore.close();
        }
    }

    @Override
    public Path root() {
        return root;
    }

    @Override
    public KvStore metadataStore() {
        return metadataStore;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public int read(String fileId, StripeLayout layout, long objectNumber, int offset, int length,
            ByteBuffer target) throws IOException {
        layout.requireWithin(objectNumber, offset, length);
        if (target.remaining() < length) {
            throw new IllegalArgumentException("read buffer has " + target.remaining() + " bytes left, "
                    + length + " needed");
        }
        lock.readLock().lock();
        try {
            checkOpen();
            LogIndex.ObjectEntry entry = index.object(fileId, objectNumber);
            if (entry == null) {
                return 0;
            }
            int stored = (int) Math.min(length, Math.max(0, entry.lengthBytes - offset));
            ByteBuffer window = target.slice().limit(stored);
            for (ByteBuffer zeros = window.duplicate(); zeros.hasRemaining(); ) {
                zeros.put(ZEROS, 0, Math.min(ZEROS.length, zeros.remaining()));
            }
            int end = offset + stored;
            Map.Entry<Integer, LogIndex.Extent> first = entry.extents.floorEntry(offset);
            Integer from = first != null && first.getValue().endInObject() > offset ? first.getKey() : offset;
            for (LogIndex.Extent extent : entry.extents.subMap(from, true, end, false).values()) {
                int readFrom = Math.max(offset, extent.offsetInObject());
                int readTo = Math.min(end, extent.endInObject());
                if (readTo > readFrom) {
                    readLog(extent.address() + (readFrom - extent.offsetInObject()),
                            window.duplicate().position(readFrom - offset).limit(readTo - offset));
                }
            }
            target.position(target.position() + stored);
            return stored;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Reads the log from {@code address} into {@code into}'s remaining bytes, through the device. */
    private void readLog(long address, ByteBuffer into) throws IOException {
        Segment segment = segments.get(address >>> SEGMENT_SHIFT);
        if (segment == null) {
            throw new IOException("the index names log segment " + (address >>> SEGMENT_SHIFT) + ", which is gone");
        }
        long position = address & OFFSET_MASK;
        long completionNanos = deviceBegin(segment, position, into.remaining(), IoKind.READ, false);
        try {
            while (into.hasRemaining()) {
                if (segment.channel.read(into, position) < 0) {
                    throw new IOException("log segment " + segment.path + " ends before " + position);
                }
                position = (address & OFFSET_MASK) + into.position();
            }
        } finally {
            device.end(completionNanos);
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
            int truncateEpoch, boolean sync) throws IOException {
        int length = data.remaining();
        layout.requireWithin(objectNumber, offset, length);
        checkFileId(fileId);
        FileMetadata before;
        FileMetadata after;
        long writtenEndAddress = -1;
        long completionNanos = 0;
        Object recordLock = records.lockFor(fileId);
        lock.writeLock().lock();
        try {
            checkOpen();
            synchronized (recordLock) {
                before = metadata(fileId);
                after = before.afterWrite(layout.objectStartOffset(objectNumber) + offset + length, length,
                        truncateEpoch);
                WriteBatch batch = new WriteBatch();
                if (length > 0) {
                    LogRecord record = new LogRecord(fileId, objectNumber, offset,
                            layout.objectStartOffset(objectNumber), truncateEpoch, data);
                    long address = append(record);
                    writtenEndAddress = address + record.totalBytes();
                    completionNanos = deviceBegin(head, address & OFFSET_MASK, record.totalBytes(), IoKind.WRITE,
                            sync);
                    index.put(fileId, objectNumber, offset, length, address + record.dataOffset(), this::markDead);
                    head.liveBytes += length;
                    putIndex(batch, fileId, objectNumber);
                    batch.put(APPLIED_KEY, longBytes(endAddress()));
                }
                boolean recordChanged = !after.equals(before);
                if (recordChanged) {
                    after.putInto(batch, fileId);
                }
                if (!batch.operations().isEmpty()) {
                    writeRecordBatch(batch, Durability.BUFFERED, fileId, recordChanged ? after : null);
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
        try {
            if (sync && writtenEndAddress >= 0) {
                forceUpTo(writtenEndAddress);
            }
        } finally {
            device.end(completionNanos);
        }
        data.position(data.limit());
        return new WriteOutcome(after.sizeBytes() > before.sizeBytes(), after);
    }

    @Override
    public FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
            throws IOException {
        if (newSizeBytes < 0) {
            throw new IllegalArgumentException("new file size must not be negative: " + newSizeBytes);
        }
        checkFileId(fileId);
        lock.writeLock().lock();
        try {
            checkOpen();
            long lastObject = newSizeBytes == 0 ? -1 : (newSizeBytes - 1) / layout.objectSizeBytes();
            long lastObjectLength = newSizeBytes - Math.max(0, lastObject) * layout.objectSizeBytes();
            WriteBatch batch = new WriteBatch();
            for (long objectNumber : List.copyOf(index.objects(fileId).keySet())) {
                if (objectNumber > lastObject) {
                    index.removeObject(fileId, objectNumber, this::markDead);
                    batch.delete(indexKey(fileId, objectNumber));
                } else if (objectNumber == lastObject
                        && index.object(fileId, objectNumber).lengthBytes > lastObjectLength) {
                    index.setLength(fileId, objectNumber, lastObjectLength, this::markDead);
                    putIndex(batch, fileId, objectNumber);
                }
            }
            if (lastObject >= 0 && layout.holds(lastObject)) {
                LogIndex.ObjectEntry last = index.object(fileId, lastObject);
                if (last == null || last.lengthBytes < lastObjectLength) {
                    index.setLength(fileId, lastObject, lastObjectLength, this::markDead);
                    putIndex(batch, fileId, lastObject);
                }
            }
            synchronized (records.lockFor(fileId)) {
                FileMetadata after = metadata(fileId).afterTruncate(newSizeBytes, truncateEpoch);
                after.putInto(batch, fileId);
                batch.put(APPLIED_KEY, longBytes(endAddress()));
                head.channel.force(false);
                writeRecordBatch(batch, Durability.SYNC, fileId, after);
                return after;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void fsync(String fileId) throws IOException {
        Segment current;
        lock.readLock().lock();
        try {
            checkOpen();
            current = head;
        } finally {
            lock.readLock().unlock();
        }
        long completionNanos = device.flush(deviceFileId(current));
        try {
            force(current);
            metadataStore.sync();
        } finally {
            device.end(completionNanos);
        }
    }

    @Override
    public void deleteFile(String fileId, WriteBatch together, Durability durability) throws IOException {
        lock.writeLock().lock();
        try {
            checkOpen();
            WriteBatch batch = new WriteBatch();
            for (long objectNumber : index.removeFile(fileId, this::markDead)) {
                batch.delete(indexKey(fileId, objectNumber));
            }
            batch.delete(FileMetadata.key(fileId));
            together.operations().forEach(operation -> {
                if (operation instanceof WriteBatch.Put put) {
                    batch.put(put.key(), put.value());
                } else {
                    batch.delete(operation.key());
                }
            });
            batch.put(APPLIED_KEY, longBytes(endAddress()));
            if (durability == Durability.SYNC) {
                head.channel.force(false);
            }
            synchronized (records.lockFor(fileId)) {
                try {
                    writeBatch(batch, durability);
                } finally {
                    records.forget(fileId); // deleted, or unknown after a failed write: read back on demand
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    // ---------------------------------------------------------------- queries

    @Override
    public FileMetadata metadata(String fileId) throws IOException {
        return records.get(fileId);
    }

    @Override
    public List<Long> storedObjects(String fileId) {
        lock.readLock().lock();
        try {
            return List.copyOf(index.objects(fileId).keySet());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Whether the log holds any byte range of the object. */
    public boolean holdsObject(String fileId, long objectNumber) {
        lock.readLock().lock();
        try {
            return index.object(fileId, objectNumber) != null;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean exists(String fileId) {
        lock.readLock().lock();
        try {
            return !index.objects(fileId).isEmpty();
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean forEachStoredFile(StoredFileVisitor visitor) throws IOException {
        List<String> fileIds;
        lock.readLock().lock();
        try {
            fileIds = List.copyOf(index.fileIds());
        } finally {
            lock.readLock().unlock();
        }
        for (String fileId : fileIds) {
            if (!visitor.visit(fileId)) {
                return false;
            }
        }
        return true;
    }

    public Statistics statistics() {
        lock.readLock().lock();
        try {
            long logBytes = 0;
            long liveBytes = 0;
            long sealedBytes = 0;
            long sealedDeadBytes = 0;
            for (Segment segment : segments.values()) {
                logBytes += segment.sizeBytes;
                liveBytes += segment.liveBytes;
                if (segment != head) {
                    sealedBytes += segment.sizeBytes;
                    sealedDeadBytes += segment.sizeBytes - segment.liveBytes;
                }
            }
            return new Statistics(segments.size(), logBytes, liveBytes, sealedDeadBytes, sealedBytes, compactedBytes);
        } finally {
            lock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------- compaction

    /** Whether dead bytes in sealed segments exceed the configured share of them (or a segment is half done). */
    public boolean needsCompaction() {
        lock.readLock().lock();
        try {
            if (closed) {
                return false;
            }
            if (compactingSegment >= 0) {
                return true;
            }
            Statistics statistics = statistics();
            return statistics.sealedDeadBytes() * 100 > statistics.sealedBytes() * options.deadPercentMax();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Compacts at most about {@code budgetBytes} (bytes read from the victim segment plus bytes copied; at least one
     * record); returns the bytes used, 0 when nothing needs compaction.
     */
    public long compact(long budgetBytes) throws IOException {
        long used = 0;
        while (used < budgetBytes) {
            long step = compactRecord();
            if (step == 0) {
                break;
            }
            used += step;
        }
        return used;
    }

    /** One record of the victim segment (chosen first if none); returns the bytes it cost, 0 if nothing to do. */
    private long compactRecord() throws IOException {
        lock.writeLock().lock();
        try {
            checkOpen();
            if (compactingSegment < 0) {
                Segment victim = null;
                for (Segment segment : segments.values()) {
                    if (segment != head && (victim == null
                            || segment.sizeBytes - segment.liveBytes > victim.sizeBytes - victim.liveBytes)) {
                        victim = segment;
                    }
                }
                Statistics statistics = statistics();
                if (victim == null
                        || statistics.sealedDeadBytes() * 100 <= statistics.sealedBytes() * options.deadPercentMax()) {
                    return 0;
                }
                compactingSegment = victim.number;
                compactingOffset = 0;
            }
            Segment victim = segments.get(compactingSegment);
            if (compactingOffset >= victim.sizeBytes) {
                finishCompaction(victim);
                return 1;
            }
            ByteBuffer recordBytes = readRecordAt(victim, compactingOffset);
            LogRecord record = recordBytes == null ? null : LogRecord.decode(recordBytes);
            if (record == null) {
                throw new IOException("corrupt record in sealed log segment " + victim.path + " at offset "
                        + compactingOffset);
            }
            long dataAddress = (victim.number << SEGMENT_SHIFT) + compactingOffset + record.dataOffset();
            long copied = 0;
            LogIndex.ObjectEntry entry = index.object(record.fileId(), record.objectNumber());
            if (entry != null) {
                WriteBatch batch = new WriteBatch();
                for (LogIndex.Extent extent : entry.extents()) {
                    if (extent.address() < dataAddress || extent.address() >= dataAddress + record.data().remaining()) {
                        continue;
                    }
                    ByteBuffer live = record.data().duplicate();
                    live.position((int) (extent.address() - dataAddress)).limit(live.position() + extent.lengthBytes());
                    LogRecord copy = new LogRecord(record.fileId(), record.objectNumber(), extent.offsetInObject(),
                            record.objectStartOffset(), record.truncateEpoch(), live);
                    long address = append(copy);
                    long completionNanos = deviceBegin(head, address & OFFSET_MASK, copy.totalBytes(), IoKind.WRITE,
                            false);
                    device.end(completionNanos);
                    index.move(record.fileId(), record.objectNumber(), extent.offsetInObject(), extent.address(),
                            address + copy.dataOffset());
                    victim.liveBytes -= extent.lengthBytes();
                    head.liveBytes += extent.lengthBytes();
                    copied += copy.totalBytes();
                }
                if (copied > 0) {
                    putIndex(batch, record.fileId(), record.objectNumber());
                    batch.put(APPLIED_KEY, longBytes(endAddress()));
                    writeBatch(batch, Durability.BUFFERED);
                }
            }
            compactingOffset += recordBytes.capacity();
            compactedBytes += recordBytes.capacity() + copied;
            return recordBytes.capacity() + copied;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Every live byte of the victim moved: make the moved index durable, then delete the segment. */
    private void finishCompaction(Segment victim) throws IOException {
        head.channel.force(false);
        writeBatch(new WriteBatch().put(APPLIED_KEY, longBytes(endAddress())), Durability.SYNC);
        segments.remove(victim.number);
        victim.channel.close();
        Files.deleteIfExists(victim.path);
        ObjectStore.forceFile(logFolder);
        compactingSegment = -1;
        compactingOffset = 0;
    }

    // ---------------------------------------------------------------- the log

    /** Appends the record at the head (starting a new segment where the layout would wrap); returns its address. */
    private long append(LogRecord record) throws IOException {
        int length = record.totalBytes();
        LogStructuredLayout.Append placed = length <= headLayout.logEndBytes() - headLayout.logStartBytes()
                ? headLayout.append(length) : null;
        if (placed == null || placed.deviceRequest().offsetBytes() < headLayout.appendOffsetBytes()) {
            startSegment(head.number + 1, length);
            placed = headLayout.append(length);
        }
        long offset = placed.deviceRequest().offsetBytes();
        preallocate(offset + length);
        ByteBuffer bytes = record.encode();
        long position = offset;
        while (bytes.hasRemaining()) {
            position += head.channel.write(bytes, position);
        }
        headLayout = placed.next();
        head.sizeBytes = headLayout.appendOffsetBytes();
        return (head.number << SEGMENT_SHIFT) | offset;
    }

    /**
     * Makes the head's file hold allocated zeros up to at least {@code endOffset} (in steps of
     * {@link #PREALLOCATION_STEP_BYTES}, forced with the file's size): an append then overwrites allocated blocks
     * within the file's size, so its fdatasync writes the data only, without an ext4 journal commit for a new size
     * or new blocks (measured: 8 synced writers got 0.20x of the conventional layout's rate without, 0.77x with).
     * The zeros are not a record (bad magic), so the log still ends at the last valid record.
     */
    private void preallocate(long endOffset) throws IOException {
        if (endOffset <= head.preallocatedBytes) {
            return;
        }
        long target = Math.min(headLayout.logEndBytes(),
                Math.max(endOffset, head.preallocatedBytes + PREALLOCATION_STEP_BYTES));
        // An emulated disk pays for the zeros as one synced sequential write: a real one writes them too.
        long completionNanos = deviceBegin(head, head.preallocatedBytes, target - head.preallocatedBytes,
                IoKind.WRITE, true);
        try {
            ByteBuffer zeros = ByteBuffer.wrap(ZEROS);
            for (long at = head.preallocatedBytes; at < target; at += zeros.capacity()) {
                head.channel.write(zeros.clear().limit((int) Math.min(ZEROS.length, target - at)), at);
            }
            head.channel.force(true);
        } finally {
            device.end(completionNanos);
        }
        head.preallocatedBytes = target;
    }

    /**
     * Seals the head (cut to its records and forced: a sealed segment is durable and exact) and makes a new segment
     * of at least the record's size.
     */
    private void startSegment(long number, long recordBytes) throws IOException {
        if (head != null) {
            head.channel.truncate(head.sizeBytes);
            head.channel.force(true);
            durableEndAddress.accumulateAndGet(endAddress(), Math::max);
        }
        Path path = logFolder.resolve(segmentName(number));
        FileChannel channel = FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PrivateFiles.fileAttribute());
        ObjectStore.forceFile(logFolder);
        head = new Segment(number, path, channel, 0);
        segments.put(number, head);
        headLayout = LogStructuredLayout.empty(0, Math.max(options.segmentBytes(), recordBytes));
    }

    private long endAddress() {
        return (head.number << SEGMENT_SHIFT) | head.sizeBytes;
    }

    /**
     * Group commit: returns once every append ending at or before {@code endAddress} is on disk. A thread that
     * finds it already covered returns at once; otherwise it forces the head as it is now, which covers its own
     * append and every other one made before (earlier segments were forced when sealed).
     */
    private void forceUpTo(long endAddress) throws IOException {
        synchronized (forceMonitor) {
            if (durableEndAddress.get() >= endAddress) {
                return;
            }
            Segment current;
            long target;
            lock.readLock().lock();
            try {
                current = head;
                target = endAddress();
            } finally {
                lock.readLock().unlock();
            }
            force(current);
            durableEndAddress.accumulateAndGet(target, Math::max);
        }
    }

    private static void force(Segment segment) throws IOException {
        try {
            segment.channel.force(false);
        } catch (ClosedChannelException sealedAndCompacted) {
            // A closed segment was sealed (forced) before it could be compacted away: its appends are durable.
        }
    }

    /** The whole record starting at {@code offset}, or null if no valid record prefix or length is there. */
    private static ByteBuffer readRecordAt(Segment segment, long offset) throws IOException {
        ByteBuffer prefix = ByteBuffer.allocate(LogRecord.PREFIX_BYTES);
        readFully(segment.channel, prefix, offset);
        prefix.flip();
        int total = LogRecord.announcedLength(prefix);
        if (total < 0 || offset + total > segment.sizeBytes) {
            return null;
        }
        ByteBuffer record = ByteBuffer.allocate(total);
        readFully(segment.channel, record, offset);
        return record.flip();
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long position) throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            int read = channel.read(into, at);
            if (read < 0) {
                return;
            }
            at += read;
        }
    }

    private void markDead(long address, long lengthBytes) {
        Segment segment = segments.get(address >>> SEGMENT_SHIFT);
        if (segment != null) {
            segment.liveBytes -= lengthBytes;
        }
    }

    // ---------------------------------------------------------------- recovery

    private void recover() throws IOException {
        PrivateFiles.folder(logFolder);
        List<Long> numbers = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(logFolder, "*" + SEGMENT_SUFFIX)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String digits = name.substring(0, name.length() - SEGMENT_SUFFIX.length());
                if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)) {
                    numbers.add(Long.parseLong(digits));
                }
            }
        }
        numbers.sort(null);
        for (long number : numbers) {
            Path path = logFolder.resolve(segmentName(number));
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            segments.put(number, new Segment(number, path, channel, channel.size()));
        }
        loadIndex();
        long applied = metadataStore.get(APPLIED_KEY).map(LogStructuredStore::longFrom).orElse(0L);
        Map<String, FileMetadata> replayedMetadata = new HashMap<>();
        Set<String> replayedObjects = new java.util.HashSet<>();
        for (Segment segment : List.copyOf(segments.values())) {
            long appliedSegment = applied >>> SEGMENT_SHIFT;
            if (segment.number < appliedSegment) {
                continue;
            }
            long offset = segment.number == appliedSegment ? Math.min(applied & OFFSET_MASK, segment.sizeBytes) : 0;
            while (offset < segment.sizeBytes) {
                ByteBuffer bytes = readRecordAt(segment, offset);
                LogRecord record = bytes == null ? null : LogRecord.decode(bytes);
                if (record == null) {
                    if (segment.number != segments.lastKey()) {
                        throw new IOException("corrupt record in sealed log segment " + segment.path + " at offset "
                                + offset + " (only the last segment may end in a torn append)");
                    }
                    // A torn append: cut it off, durably, so it is never read as data.
                    segment.channel.truncate(offset);
                    segment.channel.force(true);
                    segment.sizeBytes = offset;
                    segment.preallocatedBytes = offset;
                    break;
                }
                long dataAddress = (segment.number << SEGMENT_SHIFT) + offset + record.dataOffset();
                int length = record.data().remaining();
                index.put(record.fileId(), record.objectNumber(), record.offsetInObject(), length, dataAddress,
                        (address, bytesDead) -> { });
                FileMetadata before = replayedMetadata.containsKey(record.fileId())
                        ? replayedMetadata.get(record.fileId()) : metadata(record.fileId());
                replayedMetadata.put(record.fileId(), before.afterWrite(
                        record.objectStartOffset() + record.offsetInObject() + length, length, record.truncateEpoch()));
                replayedObjects.add(record.fileId() + '\0' + record.objectNumber());
                offset += bytes.capacity();
            }
        }
        Set<String> droppedObjects = dropExtentsBeyondTheLog();
        replayedObjects.addAll(droppedObjects);
        if (segments.isEmpty()) {
            startSegment(0, 0);
        } else {
            head = segments.lastEntry().getValue();
            headLayout = new LogStructuredLayout(0, Math.max(options.segmentBytes(), head.sizeBytes), head.sizeBytes);
        }
        for (Segment segment : segments.values()) {
            segment.liveBytes = 0;
        }
        for (String fileId : index.fileIds()) {
            for (LogIndex.ObjectEntry entry : index.objects(fileId).values()) {
                for (LogIndex.Extent extent : entry.extents.values()) {
                    segments.get(extent.address() >>> SEGMENT_SHIFT).liveBytes += extent.lengthBytes();
                }
            }
        }
        WriteBatch batch = new WriteBatch();
        for (String key : replayedObjects) {
            int separator = key.indexOf('\0');
            String fileId = key.substring(0, separator);
            long objectNumber = Long.parseLong(key.substring(separator + 1));
            if (index.object(fileId, objectNumber) == null) {
                batch.delete(indexKey(fileId, objectNumber));
            } else {
                putIndex(batch, fileId, objectNumber);
            }
        }
        replayedMetadata.forEach((fileId, metadata) -> metadata.putInto(batch, fileId));
        batch.put(APPLIED_KEY, longBytes(endAddress()));
        writeBatch(batch, Durability.SYNC);
        // Read before the replay (FileMetadataRecords keeps what it read): the store is the authority again.
        replayedMetadata.keySet().forEach(records::forget);
    }

    private void loadIndex() throws IOException {
        try (KvIterator entries = metadataStore.iterator(KeyRange.prefix(INDEX_PREFIX))) {
            while (entries.hasNext()) {
                KvEntry entry = entries.next();
                byte[] key = entry.key();
                int separator = key.length - 9;
                if (separator < INDEX_PREFIX.length || key[separator] != 0) {
                    throw new IOException("corrupt log index key of " + key.length + " bytes");
                }
                String fileId = new String(key, INDEX_PREFIX.length, separator - INDEX_PREFIX.length,
                        StandardCharsets.UTF_8);
                long objectNumber = ByteBuffer.wrap(key, separator + 1, 8).getLong();
                try {
                    index.load(fileId, objectNumber, LogIndex.decode(entry.value()));
                } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
                    throw new IOException("corrupt log index entry of file " + fileId + " object " + objectNumber
                            + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * Drops index extents that name bytes the log does not hold (their index write reached the disk, their record
     * did not); returns the objects changed ("fileId\0objectNumber").
     */
    private Set<String> dropExtentsBeyondTheLog() {
        Set<String> changed = new java.util.HashSet<>();
        for (String fileId : List.copyOf(index.fileIds())) {
            for (Map.Entry<Long, LogIndex.ObjectEntry> object : List.copyOf(index.objects(fileId).entrySet())) {
                for (LogIndex.Extent extent : object.getValue().extents()) {
                    Segment segment = segments.get(extent.address() >>> SEGMENT_SHIFT);
                    if (segment == null || (extent.address() & OFFSET_MASK) + extent.lengthBytes() > segment.sizeBytes) {
                        object.getValue().extents.remove(extent.offsetInObject());
                        changed.add(fileId + '\0' + object.getKey());
                    }
                }
            }
        }
        return changed;
    }

    // ---------------------------------------------------------------- helpers

    private long deviceBegin(Segment segment, long offset, long lengthBytes, IoKind kind, boolean synced) {
        return device.begin(deviceFileId(segment), offset / DEVICE_OBJECT_BYTES, DEVICE_OBJECT_BYTES,
                offset % DEVICE_OBJECT_BYTES, lengthBytes, kind, synced);
    }

    /** The name under which an emulated device sees a segment: one file, so appends are one sequential stream. */
    private static String deviceFileId(Segment segment) {
        return "\0log:" + segment.number;
    }

    private void putIndex(WriteBatch batch, String fileId, long objectNumber) {
        LogIndex.ObjectEntry entry = index.object(fileId, objectNumber);
        if (entry == null) {
            batch.delete(indexKey(fileId, objectNumber));
        } else {
            batch.put(indexKey(fileId, objectNumber), LogIndex.encode(entry));
        }
    }


    /**
     * Writes a batch that carries the file's record {@code record} (null: the record is not in it) and keeps the
     * records in memory equal to the store (FileMetadataRecords); the caller holds the record's lock.
     */
    private void writeRecordBatch(WriteBatch batch, Durability durability, String fileId, FileMetadata record)
            throws IOException {
        try {
            writeBatch(batch, durability);
        } catch (IOException | RuntimeException e) {
            records.forget(fileId);
            throw e;
        }
        if (record != null) {
            records.stored(fileId, record);
        }
    }

    private void writeBatch(WriteBatch batch, Durability durability) throws IOException {
        try {
            metadataStore.write(batch, durability);
        } catch (KvException e) {
            throw new IOException("cannot write the log index: " + e.getMessage(), e);
        }
    }

    static byte[] indexKey(String fileId, long objectNumber) {
        byte[] id = fileId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(INDEX_PREFIX.length + id.length + 9).put(INDEX_PREFIX).put(id).put((byte) 0)
                .putLong(objectNumber).array();
    }


    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    private static long longFrom(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    private static String segmentName(long number) {
        return String.format("%020d%s", number, SEGMENT_SUFFIX);
    }

    private static void checkFileId(String fileId) {
        if (fileId.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("file id contains a NUL character: " + fileId.replace('\0', '?'));
        }
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("the log-structured store under " + root + " is closed");
        }
    }

    private void closeSegments() {
        for (Segment segment : segments.values()) {
            try {
                segment.channel.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
    }

}
