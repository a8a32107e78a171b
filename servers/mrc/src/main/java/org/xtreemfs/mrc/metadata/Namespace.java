package org.xtreemfs.mrc.metadata;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * The namespace core under every metadata operation: volumes, inodes, directory entries and xattrs on a
 * {@link KvStore} (keys: {@link KvLayout}, which stays inside this package), path resolution with the
 * permission checks every lookup needs, and the few small helpers several operations share (new inodes,
 * link counts, directory times). It holds no operation's logic: each operation lives in its class in
 * {@code org.xtreemfs.mrc.ops} and changes the store through a {@link Transaction} from {@link #begin()}.
 *
 * <p>Invariants: every write goes through a transaction, so an operation commits all its changes as one
 * batch or none (reads that must see the operation's own writes take the transaction too; listings and
 * emptiness checks read the committed store); nothing here reads a clock or a random source (time and
 * caller come in the {@link OperationContext}), so an operation is a deterministic function of (context,
 * store). Changes happen on the metadata stage's single thread only; operations that only read may also run
 * on other threads through {@link #read}.
 */
public final class Namespace {
    public static final long ROOT_INODE = 1;
    /** errno of "the volume's root cannot be removed or renamed" (foundation's Errno.EBUSY). */
    public static final int EBUSY = org.xtreemfs.foundation.rpc.Errno.EBUSY;

    private final KvStore store;
    private final Durability durability;
    private final AtimePolicy atimePolicy;

    public Namespace(KvStore store, Durability durability, AtimePolicy atimePolicy) {
        this.store = store;
        this.durability = durability;
        this.atimePolicy = atimePolicy;
    }

    /**
     * Set by {@link OutcomeJournal} while it runs an operation whose writes join its outcome's batch; per thread,
     * so that a read-only operation on another thread ({@link #read}) never sees the metadata thread's held map.
     */
    private final ThreadLocal<Map<ByteBuffer, Optional<byte[]>>> heldWrites = new ThreadLocal<>();
    /**
     * Every batch is written under the write side; {@link #read} runs a read-only operation under the read
     * side, so it sees the store between two batches (all of an operation's changes or none of them), as an
     * operation on the metadata thread does.
     */
    private final ReentrantReadWriteLock commitLock = new ReentrantReadWriteLock();
    /**
     * Committed values (empty: absent) of keys read through {@link #committedValue}, so that the records every
     * operation reads again (the volume's name and record, the root and parent directories, the inode counter, the
     * name a create looked up just before) cost a map lookup instead of a RocksDB get each. Profiled (perf, MRC during
     * creates through FUSE): RocksDB point gets, 11 per create, were 15 % of the MRC's CPU, mostly in the memtable's
     * skip list.
     *
     * <p>Invariant: an entry always equals the store's committed value of its key. It is filled under the read side
     * of {@link #commitLock}, so never from before a batch that is written meanwhile, and {@link #write} replaces the
     * values of every cached key it writes under the write side, right after the store took the batch: in the entry's
     * holder ({@link Slot}), so a write costs the cache one look-up per key and no change of the map (a Caffeine
     * {@code computeIfPresent} per written key: 30 µs per create through FUSE at load 31, 17 µs with the slots at
     * load 26-38; async-profiler, tests/bench/fuse/README.md "session 13"). Every write of this
     * store goes through {@link #write} (the namespace owns the store; the journal and the ledger commit through it).
     * Keys not cached are not added by writes (outcome records, new inodes: nothing reads them back soon). Evicting an
     * entry never breaks the invariant (the next read fills it from the store again), so which entries the policy
     * keeps changes only how many store reads an operation costs, never what it reads: operations stay a
     * deterministic function of (context, store). Values are shared: callers only read them.
     *
     * <p>Bounded to {@link #COMMITTED_VALUES_KEPT_MAX} keys by Caffeine's W-TinyLFU (a small LRU window for new
     * keys, then admission by estimated access frequency). Why not empty it when full, as before: a listing with
     * attributes of a 5,000-entry directory, or a stat of 10,000 files, read each of its keys once and emptied the
     * cache every 16,384 keys, dropping with them the volume, the parent directories and every other key in use.
     * Why not a plain LRU: such a sweep of keys read once would still push out everything read often but not in the
     * last 16,384 reads; a key seen once now loses against a key read often. Maintenance (eviction) runs on the
     * calling thread ({@code executor(Runnable::run)}), so the bound holds after every fill and no pool thread is
     * involved.
     */
    private final Cache<ByteBuffer, Slot> committed = Caffeine.newBuilder()
            .maximumSize(COMMITTED_VALUES_KEPT_MAX)
            .executor(Runnable::run)
            .build();
    static final int COMMITTED_VALUES_KEPT_MAX = 16_384;
    /** {@link #committedInodes}: fewer keys than this are read with a multi-get (an iterator has a fixed cost). */
    static final int INODE_SCAN_KEYS_MIN = 16;
    /** {@link #committedInodes}: keys whose inodes span more numbers than this per key are read with a multi-get. */
    static final int INODE_SCAN_SPAN_PER_KEY = 2;

    /**
     * One cached committed value and, once a reader asked for it, its decoded form (an immutable record or message,
     * shared by every reader: the volume, an inode). Each key kind has one decoder, so the form does not depend on who
     * decoded first. A committed change replaces the whole entry, so a decoded form always belongs to its value.
     * Why: parsing the volume's record (protobuf) and the parent directory's inode record twice per create was a
     * large part of what remained after the gets (perf of the MRC during creates).
     */
    private static final class Committed {
        final Optional<byte[]> value;
        /** Null until decoded; racing readers may both decode, and either result is equal. */
        volatile Object decoded;

        Committed(Optional<byte[]> value) {
            this.value = value;
        }
    }

    /**
     * A cached key's current {@link Committed}: replaced (never changed) by {@link #write} under the write side of
     * {@link #commitLock}. A reader that took the slot before a write and reads it after sees the new value, as a
     * reader that looks the key up after the write does; one that read it before sees the old one, as before a write.
     */
    private static final class Slot {
        volatile Committed current;

        Slot(Committed current) {
            this.current = current;
        }
    }

    /** A new transaction over the store; its {@code commit} writes one batch with the configured durability. */
    public Transaction begin() {
        return new Transaction(this, durability, heldWrites.get());
    }

    /**
     * Runs {@code operation} with every transaction's commit collected into {@code held} instead of written
     * (in the metadata stage only, one operation at a time; not reentrant).
     */
    <T> T holdingWrites(Map<ByteBuffer, Optional<byte[]>> held, Callable<T> operation) throws Exception {
        if (heldWrites.get() != null) {
            throw new IllegalStateException("an operation already holds its writes");
        }
        heldWrites.set(held);
        try {
            return operation.call();
        } finally {
            heldWrites.remove();
        }
    }

    /**
     * Runs an operation that only reads, on the calling thread (any thread, concurrently with the metadata
     * thread and other readers), seeing the store as of a moment between two committed batches. Invariant: it
     * writes nothing ({@link #write} refuses while the read side is held, which would otherwise deadlock).
     */
    public <T> T read(Callable<T> operation) throws Exception {
        commitLock.readLock().lock();
        try {
            return operation.call();
        } finally {
            commitLock.readLock().unlock();
        }
    }

    /** Writes {@code changes} (present value: put, empty: delete) as one batch. */
    void write(Map<ByteBuffer, Optional<byte[]>> changes, Durability batchDurability) {
        if (commitLock.getReadHoldCount() > 0) {
            throw new IllegalStateException("a read-only operation (Namespace.read) tried to write "
                    + changes.size() + " records");
        }
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<ByteBuffer, Optional<byte[]>> entry : changes.entrySet()) {
            byte[] key = entry.getKey().array();
            if (entry.getValue().isPresent()) {
                batch.put(key, entry.getValue().get());
            } else {
                batch.delete(key);
            }
        }
        commitLock.writeLock().lock();
        try {
            store.write(batch, batchDurability);
            for (Map.Entry<ByteBuffer, Optional<byte[]>> entry : changes.entrySet()) {
                Slot slot = committed.getIfPresent(entry.getKey());
                if (slot != null) {
                    slot.current = new Committed(entry.getValue());
                }
            }
        } finally {
            commitLock.writeLock().unlock();
        }
        List<DeletedFile> deleted = null;
        for (Map.Entry<ByteBuffer, Optional<byte[]>> entry : changes.entrySet()) {
            byte[] key = entry.getKey().array();
            if (key.length > 0 && key[0] == KvLayout.OBJECT_DELETION && entry.getValue().isPresent()) {
                if (deleted == null) {
                    deleted = new ArrayList<>();
                }
                deleted.add(objectDeletionOf(key, entry.getValue().get()));
            }
        }
        if (deleted != null) {
            objectDeletionsCommitted.accept(deleted);
        }
    }

    /** The committed value of {@code key} (empty when absent), from the cache of committed values or the store. */
    Optional<byte[]> committedValue(byte[] key) {
        return committedEntry(key).value;
    }

    /**
     * The committed value of {@code key} decoded by {@code decoder} (empty when absent), decoded once per committed
     * value. {@code decoder} must be the one decoder of the key's kind and return an immutable object.
     */
    @SuppressWarnings("unchecked")
    <T> Optional<T> committedDecoded(byte[] key, Function<byte[], T> decoder) {
        Committed entry = committedEntry(key);
        if (entry.value.isEmpty()) {
            return Optional.empty();
        }
        Object decoded = entry.decoded;
        if (decoded == null) {
            decoded = decoder.apply(entry.value.get());
            entry.decoded = decoded;
        }
        return Optional.of((T) decoded);
    }

    /**
     * {@link #committedValue} of a key the caller expects to be absent (a name a create takes): a cache miss reads the
     * store with {@link KvStore#getExpectedAbsent}, the same value at a lower cost when it is absent, and fills the
     * cache only when the key is present (an O_CREAT open of an existing file, likely opened again). Why not an absent
     * one: it becomes the new file's name, which only a later lookup of that name would read, and the fill (a Caffeine
     * put into a full cache) was 5.3 % of the MRC's samples during creates, more than the look-up in the store itself
     * (4.0 %; async-profiler, tests/bench/fuse/README.md, session 16).
     */
    Optional<byte[]> committedValueExpectedAbsent(byte[] key) {
        Slot cached = committed.getIfPresent(ByteBuffer.wrap(key));
        if (cached != null) {
            return cached.current.value;
        }
        return betweenBatches(() -> {
            Optional<byte[]> value = store.getExpectedAbsent(key);
            if (value.isPresent()) {
                committed.put(ByteBuffer.wrap(key.clone()), new Slot(new Committed(value)));
            }
            return value;
        });
    }

    private Committed committedEntry(byte[] key) {
        Slot cached = committed.getIfPresent(ByteBuffer.wrap(key));
        if (cached != null) {
            return cached.current;
        }
        return betweenBatches(() -> {
            Committed entry = new Committed(store.get(key));
            committed.put(ByteBuffer.wrap(key.clone()), new Slot(entry));
            return entry;
        });
    }

    /**
     * Runs {@code storeRead} under the commit lock's read side, so it never sees half of a batch and a value it caches
     * is not overwritten by an older one ({@link #write} updates cached keys while holding the write side).
     */
    private <T> T betweenBatches(Supplier<T> storeRead) {
        commitLock.readLock().lock();
        try {
            return storeRead.get();
        } finally {
            commitLock.readLock().unlock();
        }
    }

    /**
     * {@link #committedValue} for a key the calling operation deletes (the name an unlink removes, its inode): a cached
     * entry is used, a miss reads the store without filling the cache. Why: an entry for such a key would only hold a
     * dead key, and filling it (a Caffeine put) cost more than half as much as the store get itself (async-profiler,
     * tests/bench/fuse/README.md, session 16).
     */
    Optional<byte[]> committedValueNotCached(byte[] key) {
        Committed cached = committedIfCached(key);
        if (cached != null) {
            return cached.value;
        }
        return betweenBatches(() -> store.get(key));
    }

    /**
     * The cached committed value of {@code key}, or null when the cache holds none; neither fills the cache nor
     * counts as an access for its eviction policy (a listing's sweep over a directory's inodes should not make them
     * look frequently read). For readers that fetch their misses otherwise ({@link #loadStats}).
     */
    private Committed committedIfCached(byte[] key) {
        Slot slot = committed.policy().getIfPresentQuietly(ByteBuffer.wrap(key));
        return slot == null ? null : slot.current;
    }

    /** Keys whose committed value is cached (at most {@link #COMMITTED_VALUES_KEPT_MAX}). */
    int committedValuesKept() {
        committed.cleanUp();
        return Math.toIntExact(committed.estimatedSize());
    }

    KvStore store() {
        return store;
    }

    Durability durability() {
        return durability;
    }

    // ---------------------------------------------------------------------------------------- volumes

    public List<Volume> listVolumes() {
        List<Volume> volumes = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KvLayout.allVolumes())) {
            while (iterator.hasNext()) {
                volumes.add(parseVolume(iterator.next().value()));
            }
        }
        volumes.sort((a, b) -> a.getName().compareTo(b.getName()));
        return volumes;
    }

    /** The volume of that name; ENOENT naming it when there is none. */
    public Volume volume(String volumeName) throws RpcException {
        Optional<String> id = committedDecoded(KvLayout.volumeName(volumeName), Namespace::utf8);
        if (id.isEmpty()) {
            throw RpcException.errno(Errno.ENOENT, "no such volume: '" + volumeName + "'");
        }
        return volumeById(id.get()).orElseThrow(() -> RpcException.internal(
                "volume '" + volumeName + "' has a name entry but no record"));
    }

    public Optional<Volume> volumeById(String volumeId) {
        return committedDecoded(KvLayout.volume(volumeId), Namespace::parseVolume);
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public boolean volumeNameTaken(Transaction transaction, String volumeName) {
        return transaction.get(KvLayout.volumeName(volumeName)).isPresent();
    }

    /** Writes the volume's record and its name entry (a new volume, or a changed record of one). */
    public void putVolume(Transaction transaction, Volume volume) {
        transaction.put(KvLayout.volume(volume.getId()), volume.toByteArray());
        transaction.put(KvLayout.volumeName(volume.getName()), volume.getId().getBytes(StandardCharsets.UTF_8));
    }

    /** A new volume's namespace: its root directory (inode {@link #ROOT_INODE}) and the inode counter. */
    public void putRootDirectory(Transaction transaction, String volumeId, Stat root) {
        transaction.put(KvLayout.inodeCounter(volumeId), KvLayout.encodeLong(ROOT_INODE + 1));
        putInode(transaction, volumeId, new InodeRecord(root, null, null, ROOT_INODE, 0));
    }

    /**
     * Deletes every record of the volume: its record, name, counter, inodes, entries, xattrs, replica work and
     * deleted files.
     */
    public void deleteVolumeRecords(Transaction transaction, Volume volume) {
        String id = volume.getId();
        transaction.delete(KvLayout.volume(id));
        transaction.delete(KvLayout.volumeName(volume.getName()));
        transaction.delete(KvLayout.inodeCounter(id));
        // Deleted files' records go too: the OSDs remove a deleted volume's objects by its id (VolumeReaper).
        for (byte kind : new byte[] {KvLayout.INODE, KvLayout.DENTRY, KvLayout.XATTR, KvLayout.REPLICA_WORK,
                KvLayout.OBJECT_DELETION}) {
            try (KvIterator iterator = store.iterator(KvLayout.volumeRange(kind, id))) {
                while (iterator.hasNext()) {
                    transaction.delete(iterator.next().key());
                }
            }
        }
    }

    /** How many inodes the volume has allocated, root included (statvfs). */
    public long allocatedInodes(String volumeId) {
        return store.get(KvLayout.inodeCounter(volumeId)).map(KvLayout::decodeLong).orElse(ROOT_INODE + 1) - 1;
    }

    // ------------------------------------------------------------------------------- path resolution

    /** The parent directory of a path's last component, with that name, and the entry ({@code null} if absent). */
    public record Entry(InodeRecord parent, String name, InodeRecord record) {}

    /** The inode a path names, with search permission on every directory on the way. */
    public InodeRecord resolve(Transaction transaction, Volume volume, Caller caller, String path)
            throws RpcException {
        return checkTrailingSlash(resolveComponents(transaction, volume, caller, PathNames.split(path), path), path);
    }

    /** As in Linux, "name/" must name a directory (ENOTDIR otherwise). */
    public static InodeRecord checkTrailingSlash(InodeRecord record, String path) throws RpcException {
        if (path.endsWith("/") && !record.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "not a directory: '" + path + "'");
        }
        return record;
    }

    /** Walks the components from the root, needing search permission on every directory passed. */
    public InodeRecord resolveComponents(Transaction transaction, Volume volume, Caller caller,
            List<String> components, String path) throws RpcException {
        InodeRecord current = loadInode(transaction, volume.getId(), ROOT_INODE);
        for (String component : components) {
            if (!current.isDirectory()) {
                throw RpcException.errno(Errno.ENOTDIR, "not a directory: a component of '" + path + "'");
            }
            Permissions.check(caller, current.stat(), Permissions.EXECUTE, path);
            long next;
            if (PathNames.isDotOrDotDot(component)) {
                next = dotTarget(current, component);
            } else {
                Optional<Long> child = lookup(transaction, volume.getId(), current.inode(), component);
                if (child.isEmpty()) {
                    throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
                }
                next = child.get();
            }
            current = loadInode(transaction, volume.getId(), next);
        }
        return current;
    }

    /** The inode "." or ".." names in {@code directory}. */
    public static long dotTarget(InodeRecord directory, String name) {
        return name.equals(".") ? directory.inode() : directory.parentInode();
    }

    /** Resolves the parent of a path and looks up its last name (which may be absent). */
    public Entry resolveEntry(Transaction transaction, Volume volume, Caller caller, String path, String operation)
            throws RpcException {
        return resolveEntry(transaction, volume, caller, path, operation, false);
    }

    /**
     * {@link #resolveEntry}; {@code removing}: the operation deletes the last name (and with its last link the inode),
     * so both are read without filling the cache of committed values ({@link Transaction#getNotCached}).
     */
    private Entry resolveEntry(Transaction transaction, Volume volume, Caller caller, String path, String operation,
            boolean removing) throws RpcException {
        List<String> components = PathNames.split(path);
        if (components.isEmpty()) {
            throw RpcException.errno(EBUSY, operation + ": '" + path + "' is the volume's root directory");
        }
        String name = components.get(components.size() - 1);
        InodeRecord parent = resolveComponents(transaction, volume, caller, components.subList(0,
                components.size() - 1), path);
        if (!parent.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "not a directory: parent of '" + path + "'");
        }
        if (PathNames.isDotOrDotDot(name)) {
            throw RpcException.errno(Errno.EINVAL, operation + ": '" + path + "' ends in '" + name + "'");
        }
        Permissions.check(caller, parent.stat(), Permissions.EXECUTE, path);
        if (!removing) {
            Optional<Long> child = lookup(transaction, volume.getId(), parent.inode(), name);
            return new Entry(parent, name, child.isEmpty() ? null : loadInode(transaction, volume.getId(),
                    child.get()));
        }
        Optional<Long> child = transaction.getNotCached(KvLayout.dentry(volume.getId(), parent.inode(), name))
                .map(KvLayout::decodeLong);
        return new Entry(parent, name, child.isEmpty() ? null : transaction.getNotCached(KvLayout.inode(
                volume.getId(), child.get())).map(InodeRecord::decode).orElseThrow(() -> missingInode(volume.getId(),
                child.get())));
    }

    /** {@link #resolveEntry} for a name that must exist (ENOENT). */
    public Entry resolveExisting(Transaction transaction, Volume volume, Caller caller, String path,
            String operation) throws RpcException {
        return existing(resolveEntry(transaction, volume, caller, path, operation), path);
    }

    /**
     * {@link #resolveExisting} for an operation that removes the name (unlink): the name and its inode are read
     * without filling the cache of committed values; pass the entry's record on ({@link #dropLink(Transaction,
     * String, InodeRecord, OperationContext)}) rather than loading it again.
     */
    public Entry resolveRemoved(Transaction transaction, Volume volume, Caller caller, String path,
            String operation) throws RpcException {
        return existing(resolveEntry(transaction, volume, caller, path, operation, true), path);
    }

    private static Entry existing(Entry entry, String path) throws RpcException {
        if (entry.record() == null) {
            throw RpcException.errno(Errno.ENOENT, "no such file or directory: '" + path + "'");
        }
        checkTrailingSlash(entry.record(), path);
        return entry;
    }

    /** A name to create: the parent must be writable and searchable, the name free (EEXIST). */
    public Entry resolveNew(Transaction transaction, Volume volume, Caller caller, String path) throws RpcException {
        List<String> components = PathNames.split(path);
        if (components.isEmpty() || PathNames.isDotOrDotDot(components.get(components.size() - 1))) {
            throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "'");
        }
        Entry entry = resolveEntry(transaction, volume, caller, path, "create");
        if (entry.record() != null) {
            throw RpcException.errno(Errno.EEXIST, "file exists: '" + path + "'");
        }
        Permissions.check(caller, entry.parent().stat(), Permissions.WRITE | Permissions.EXECUTE, parentPath(path));
        return entry;
    }

    /** Removing or replacing an entry: write+search on its directory, and the sticky-bit rule. */
    public static void checkRemovable(Caller caller, Entry entry, String path) throws RpcException {
        Permissions.check(caller, entry.parent().stat(), Permissions.WRITE | Permissions.EXECUTE, parentPath(path));
        Permissions.checkSticky(caller, entry.parent().stat(), entry.record().stat(), path);
    }

    /** The path of the directory that holds the last component, for error messages ("/" at the top). */
    public static String parentPath(String path) {
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int slash = trimmed.lastIndexOf('/');
        return slash <= 0 ? "/" : trimmed.substring(0, slash);
    }

    // ---------------------------------------------------------------------------- inodes and entries

    /** The inode a capability names; ENOENT when the file has been deleted since. */
    public InodeRecord inodeOf(Transaction transaction, String volumeId, long inode) throws RpcException {
        return loadInodeIfPresent(transaction, volumeId, inode).orElseThrow(() -> RpcException.errno(
                Errno.ENOENT, "file " + FileIds.fileId(volumeId, inode) + " no longer exists"));
    }

    /** An inode the namespace references; a missing one is corruption (an internal error). */
    public InodeRecord loadInode(Transaction transaction, String volumeId, long inode) throws RpcException {
        return loadInodeIfPresent(transaction, volumeId, inode).orElseThrow(() -> missingInode(volumeId, inode));
    }

    private static Optional<InodeRecord> loadInodeIfPresent(Transaction transaction, String volumeId, long inode) {
        return transaction.getDecoded(KvLayout.inode(volumeId, inode), InodeRecord::decode);
    }

    /**
     * The Stats of {@code inodes} (the entries of a listing's page), in that order. Each is what {@link #loadInode}
     * reads (this operation's own write, else the committed value), taken from where it is cheapest: this
     * operation's own write; a cached committed value (its decoded record's Stat when a reader decoded it, else only
     * the value's leading Stat); the rest in one multi-get of the store ({@link KvStore#multiGet}), decoded only as
     * far as their Stat and not put into the cache of committed values: a listing reads each inode once, and caching
     * 10,000 of them would only push out the keys operations read again and again. Why: a listing with attributes
     * did a cache look-up, a point get, a cache fill and a whole record's decoding per entry, and the mount's
     * stat-ahead waits for the whole listing of a 10,000-entry directory (tests/bench/fuse/README.md, sessions 12
     * and 13); one multi-get of every entry (session 12) halved a listing of uncached inodes but made one of cached
     * inodes slower, hence the hits first. A missing inode is corruption (an internal error), as there.
     */
    public List<Stat> loadStats(Transaction transaction, String volumeId, List<Long> inodes) throws RpcException {
        Stat[] stats = new Stat[inodes.size()];
        List<byte[]> missedKeys = new ArrayList<>();
        int[] missedPositions = new int[inodes.size()];
        for (int position = 0; position < stats.length; position++) {
            long inode = inodes.get(position);
            byte[] key = KvLayout.inode(volumeId, inode);
            Optional<byte[]> value = transaction.ownWrite(key);
            if (value == null) {
                Committed cached = committedIfCached(key);
                if (cached == null) {
                    missedPositions[missedKeys.size()] = position;
                    missedKeys.add(key);
                    continue;
                }
                if (cached.decoded instanceof InodeRecord record) {
                    stats[position] = record.stat();
                    continue;
                }
                value = cached.value;
            }
            stats[position] = InodeRecord.decodeStat(value.orElseThrow(() -> missingInode(volumeId, inode)));
        }
        if (!missedKeys.isEmpty()) {
            List<Optional<byte[]>> values = betweenBatches(() -> committedInodes(volumeId, missedKeys));
            for (int i = 0; i < values.size(); i++) {
                long inode = inodes.get(missedPositions[i]);
                stats[missedPositions[i]] = InodeRecord.decodeStat(
                        values.get(i).orElseThrow(() -> missingInode(volumeId, inode)));
            }
        }
        return Arrays.asList(stats);
    }

    /**
     * The stored values of inode keys (of one volume), in their order; called under the commit lock's read side. Files
     * created together (one directory's files: an untar, a build, make bench's loop) have neighbouring inode numbers, so
     * when the keys' inodes span at most {@link #INODE_SCAN_SPAN_PER_KEY} numbers per key they are read in one pass of
     * an iterator over that span, else with one multi-get. Why: each key of a multi-get is a search of the memtable's
     * skip list (and of every table's index), an iterator's step is not; a listing with attributes of 10,000 such files
     * spent 33 % of the MRC's CPU in the multi-get and 11 % in the iterator over the names (async-profiler,
     * tests/bench/fuse/README.md, session 16). A span's other inodes are stepped over; a missing key reads as empty,
     * as from the multi-get.
     */
    private List<Optional<byte[]>> committedInodes(String volumeId, List<byte[]> keys) {
        long[] sorted = new long[keys.size()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = KvLayout.inodeOfKey(keys.get(i));
        }
        Arrays.sort(sorted);
        long lowest = sorted[0];
        long highest = sorted[sorted.length - 1];
        if (keys.size() < INODE_SCAN_KEYS_MIN || highest == Long.MAX_VALUE
                || highest - lowest >= (long) keys.size() * INODE_SCAN_SPAN_PER_KEY) {
            return store.multiGet(keys);
        }
        Map<Long, byte[]> found = new HashMap<>(keys.size() * 2);
        try (KvIterator iterator = store.iterator(KeyRange.between(KvLayout.inode(volumeId, lowest),
                KvLayout.inode(volumeId, highest + 1)))) {
            while (iterator.hasNext()) {
                KvEntry entry = iterator.next();
                long inode = KvLayout.inodeOfKey(entry.key());
                if (Arrays.binarySearch(sorted, inode) >= 0) {
                    found.put(inode, entry.value());
                }
            }
        }
        List<Optional<byte[]>> values = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            values.add(Optional.ofNullable(found.get(KvLayout.inodeOfKey(key))));
        }
        return values;
    }

    private static RpcException missingInode(String volumeId, long inode) {
        return RpcException.internal("namespace of volume " + volumeId + " references missing inode " + inode);
    }

    public void putInode(Transaction transaction, String volumeId, InodeRecord record) {
        transaction.put(KvLayout.inode(volumeId, record.inode()), record.encode());
    }

    /**
     * Deletes an inode and its xattrs (not its entries). The xattr keys are scanned only when the record says the inode
     * may have some ({@link InodeRecord#mayHaveXattrs}; a missing record is scanned too).
     */
    public void deleteInode(Transaction transaction, String volumeId, long inode) {
        deleteInode(transaction, volumeId, inode, loadInodeIfPresent(transaction, volumeId, inode)
                .map(InodeRecord::mayHaveXattrs).orElse(true));
    }

    private void deleteInode(Transaction transaction, String volumeId, long inode, boolean mayHaveXattrs) {
        transaction.delete(KvLayout.inode(volumeId, inode));
        if (!mayHaveXattrs) {
            return;
        }
        try (KvIterator iterator = store.iterator(KeyRange.prefix(KvLayout.xattrPrefix(volumeId, inode)))) {
            while (iterator.hasNext()) {
                transaction.delete(iterator.next().key());
            }
        }
    }

    // ------------------------------------------------------------------------------------ replica work

    /**
     * A file whose chain has replica work left for the MRC's recovery (ops.RecoveryCheck): a filling replica to
     * finish, or fewer replicas than {@code targetReplicas} (0: no count to restore). {@code key} is the cursor.
     */
    public record ReplicaWork(String volumeId, long inode, int targetReplicas, byte[] key) {}

    /** The replica count recorded for the file's chain to be restored to (0: none). */
    public int replicaTarget(Transaction transaction, String volumeId, long inode) {
        return transaction.get(KvLayout.replicaWork(volumeId, inode)).map(Namespace::decodeTarget).orElse(0);
    }

    /**
     * Records the file's replica work with the count to restore ({@code targetReplicas} present) or clears it
     * (empty), in the transaction; writes nothing when that is already so.
     */
    public void setReplicaWork(Transaction transaction, String volumeId, long inode, Optional<Integer> targetReplicas) {
        byte[] key = KvLayout.replicaWork(volumeId, inode);
        Optional<byte[]> stored = transaction.get(key);
        if (targetReplicas.isEmpty()) {
            if (stored.isPresent()) {
                transaction.delete(key);
            }
            return;
        }
        byte[] value = ByteBuffer.allocate(Integer.BYTES).putInt(targetReplicas.get()).array();
        if (stored.isEmpty() || !Arrays.equals(stored.get(), value)) {
            transaction.put(key, value);
        }
    }

    /** Up to {@code count} files with replica work after {@code afterKey} (null: from the first), committed. */
    public List<ReplicaWork> replicaWork(byte[] afterKey, int count) {
        List<ReplicaWork> files = new ArrayList<>();
        for (KvEntry entry : store.scan(KvLayout.replicaWorkAfter(afterKey), count)) {
            files.add(new ReplicaWork(KvLayout.replicaWorkVolumeId(entry.key()),
                    KvLayout.replicaWorkInode(entry.key()), decodeTarget(entry.value()), entry.key()));
        }
        return files;
    }

    private static int decodeTarget(byte[] value) {
        if (value.length != Integer.BYTES) {
            throw new IllegalStateException("corrupt replica work record of " + value.length + " bytes");
        }
        return ByteBuffer.wrap(value).getInt();
    }

    /** The next inode number of the volume (the counter advances in the transaction). */
    public long allocateInode(Transaction transaction, String volumeId) throws RpcException {
        byte[] key = KvLayout.inodeCounter(volumeId);
        long next = transaction.get(key).map(KvLayout::decodeLong).orElseThrow(() -> RpcException.internal(
                "volume " + volumeId + " has no inode counter"));
        transaction.put(key, KvLayout.encodeLong(next + 1));
        return next;
    }

    public Optional<Long> lookup(Transaction transaction, String volumeId, long parent, String name) {
        return transaction.get(KvLayout.dentry(volumeId, parent, name)).map(KvLayout::decodeLong);
    }

    /**
     * {@link #lookup} of a name the caller expects to be free (open with O_CREAT): the same answer; a name absent from
     * the store costs less, a present one more. Why: the create's look-up of its new name, a RocksDB get that finds
     * nothing, was a tenth of the MRC's CPU per create through FUSE (async-profiler, tests/bench/fuse/README.md,
     * session 14), about half of it the C++ exception RocksJava throws for a missing key.
     */
    public Optional<Long> lookupExpectedAbsent(Transaction transaction, String volumeId, long parent, String name) {
        return transaction.getExpectedAbsent(KvLayout.dentry(volumeId, parent, name)).map(KvLayout::decodeLong);
    }

    public void putDentry(Transaction transaction, String volumeId, long parent, String name, long inode) {
        transaction.put(KvLayout.dentry(volumeId, parent, name), KvLayout.encodeLong(inode));
    }

    public void deleteDentry(Transaction transaction, String volumeId, long parent, String name) {
        transaction.delete(KvLayout.dentry(volumeId, parent, name));
    }

    /** Whether the directory has any entry in the store (before this operation's own writes). */
    public boolean hasEntries(String volumeId, long directoryInode) {
        return !store.scan(KeyRange.prefix(KvLayout.dentryPrefix(volumeId, directoryInode)), 1).isEmpty();
    }

    /** One directory entry: a name and the inode it links to. */
    public record Dentry(String name, long inode) {}

    /**
     * Up to {@code count} entries of a directory in byte order of their names, after skipping the first
     * {@code skip} (readdir's pages by position: the skipped entries are stepped over one by one). Reads the
     * committed store.
     */
    public List<Dentry> dentries(String volumeId, long directoryInode, long skip, int count) {
        return dentries(volumeId, KeyRange.prefix(KvLayout.dentryPrefix(volumeId, directoryInode)), skip, count);
    }

    /**
     * Up to {@code count} entries of a directory whose names sort after {@code afterName} (which need not exist any
     * more), in byte order of their names: readdir's continuation from the last name a reader saw, which seeks to the
     * name instead of stepping over every entry before it, so a whole listing costs time linear in its length.
     * Reads the committed store.
     */
    public List<Dentry> dentriesAfter(String volumeId, long directoryInode, String afterName, int count) {
        byte[] prefix = KvLayout.dentryPrefix(volumeId, directoryInode);
        // The smallest key greater than the name's own: the name followed by a zero byte.
        byte[] start = Keys.concat(KvLayout.dentry(volumeId, directoryInode, afterName), new byte[] {0});
        return dentries(volumeId, KeyRange.between(start, Keys.prefixEnd(prefix)), 0, count);
    }

    private List<Dentry> dentries(String volumeId, KeyRange range, long skip, int count) {
        List<Dentry> page = new ArrayList<>();
        long toSkip = skip;
        try (KvIterator iterator = store.iterator(range)) {
            while (iterator.hasNext() && page.size() < count) {
                KvEntry dentry = iterator.next();
                if (toSkip > 0) {
                    toSkip--;
                    continue;
                }
                page.add(new Dentry(KvLayout.dentryName(volumeId, dentry.key()), KvLayout.decodeLong(dentry.value())));
            }
        }
        return page;
    }

    /** Adds a new inode under the entry's name; a new subdirectory raises the parent's nlink. */
    public void insertEntry(Transaction transaction, String volumeId, Entry entry, InodeRecord record,
            OperationContext context) throws RpcException {
        putInode(transaction, volumeId, record);
        putDentry(transaction, volumeId, entry.parent().inode(), entry.name(), record.inode());
        touchDirectory(transaction, volumeId, entry.parent().inode(), record.isDirectory() ? 1 : 0, context);
    }

    /** Decrements a non-directory's link count; deletes it at zero and returns it if it had objects. */
    public Optional<DeletedFile> dropLink(Transaction transaction, String volumeId, long inode,
            OperationContext context) throws RpcException {
        return dropLink(transaction, volumeId, loadInode(transaction, volumeId, inode), context);
    }

    /**
     * {@link #dropLink} of the inode {@code record}, which the caller read in this transaction (so it is what
     * {@link #loadInode} would read now).
     */
    public Optional<DeletedFile> dropLink(Transaction transaction, String volumeId, InodeRecord record,
            OperationContext context) throws RpcException {
        long inode = record.inode();
        int links = record.stat().getNlink() - 1;
        if (links > 0) {
            putInode(transaction, volumeId, record.withStat(record.stat().toBuilder().setNlink(links)
                    .setCtimeNs(context.nowNanos()).build()));
            return Optional.empty();
        }
        deleteInode(transaction, volumeId, inode, record.mayHaveXattrs());
        if (!record.isRegularFile() || !record.hasLayout()) {
            return Optional.empty();
        }
        DeletedFile deleted = new DeletedFile(volumeId, inode, record.xlocs(), record.issuedTruncateEpoch());
        // In the operation's own batch: the name goes and its objects' deletion is owed, together or not at all.
        transaction.put(KvLayout.objectDeletion(volumeId, inode), deleted.encodeObjects());
        return Optional.of(deleted);
    }

    /**
     * Called after each batch that recorded deleted files (by {@link #dropLink}), with those files, on the thread
     * that wrote it and outside the commit lock; must return quickly. A repeated request answered from its
     * recorded outcome writes nothing and so reports nothing again. Set once, before operations run.
     */
    public void onObjectDeletionsCommitted(Consumer<List<DeletedFile>> listener) {
        this.objectDeletionsCommitted = listener;
    }

    private volatile Consumer<List<DeletedFile>> objectDeletionsCommitted = files -> {};

    /** Up to {@code count} recorded deletions from the store, in key order (at start, and after a full queue). */
    public List<DeletedFile> objectDeletions(int count) {
        List<DeletedFile> files = new ArrayList<>();
        for (KvEntry entry : store.scan(KvLayout.allObjectDeletions(), count)) {
            files.add(objectDeletionOf(entry.key(), entry.value()));
        }
        return files;
    }

    /** Every OSD of the file queued its objects' deletion: its record goes. */
    public void objectDeletionDone(Transaction transaction, DeletedFile file) {
        transaction.delete(KvLayout.objectDeletion(file.volumeId(), file.inode()));
    }

    private static DeletedFile objectDeletionOf(byte[] key, byte[] value) {
        return DeletedFile.decodeObjects(KvLayout.replicaWorkVolumeId(key), KvLayout.replicaWorkInode(key), value);
    }

    /**
     * A directory's entries changed: mtime and ctime now, nlink adjusted by {@code linkDelta}. Returns the record as
     * written, which is what the directory reads as once the batch commits (answers that carry the directory's Stat use
     * it instead of decoding the pending write again).
     */
    public InodeRecord touchDirectory(Transaction transaction, String volumeId, long directoryInode, int linkDelta,
            OperationContext context) throws RpcException {
        InodeRecord directory = loadInode(transaction, volumeId, directoryInode);
        InodeRecord touched = directory.withStat(directory.stat().toBuilder()
                .setNlink(directory.stat().getNlink() + linkDelta)
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .build());
        putInode(transaction, volumeId, touched);
        return touched;
    }

    /**
     * The inode's Stat with atime = now when the atime policy asks for an update on this access (an open
     * for reading, a listing from offset 0); empty when nothing is to be written. ctime stays.
     */
    public Optional<Stat> accessed(Stat stat, OperationContext context) {
        if (!atimePolicy.updates(stat.getAtimeNs(), stat.getMtimeNs(), stat.getCtimeNs(), context.nowNanos())) {
            return Optional.empty();
        }
        return Optional.of(stat.toBuilder().setAtimeNs(context.nowNanos()).build());
    }

    /** The Stat of a new inode owned by the caller, all three times now, blksize the volume's object size. */
    public static Stat.Builder newStat(OperationContext context, long inode, int mode, int nlink, int gid,
            Volume volume) {
        return Stat.newBuilder()
                .setInode(inode)
                .setMode(mode)
                .setNlink(nlink)
                .setUid(context.caller().uid())
                .setGid(gid)
                .setAtimeNs(context.nowNanos())
                .setMtimeNs(context.nowNanos())
                .setCtimeNs(context.nowNanos())
                .setBlksize(volume.getDefaultStripingPolicy().getObjectSizeBytes());
    }

    /** New entries take the directory's group when it has setgid (BSD semantics), else the caller's. */
    public static int inheritedGid(OperationContext context, InodeRecord parent) {
        return (parent.mode() & FileModes.S_ISGID) != 0 ? parent.stat().getGid() : context.caller().gid();
    }

    /** The Stat with {@code blocks} (512-byte units) derived from its size. */
    public static Stat withBlocks(Stat stat) {
        return stat.toBuilder().setBlocks((stat.getSizeBytes() + 511) / 512).build();
    }

    // ------------------------------------------------------------------------------------- xattrs

    public Optional<byte[]> xattr(Transaction transaction, String volumeId, long inode, String name) {
        return transaction.get(KvLayout.xattr(volumeId, inode, name));
    }

    /**
     * Stores an xattr's value, marks the inode as having xattrs ({@link InodeRecord#mayHaveXattrs}) and stamps its
     * ctime, in the transaction: the mark always commits in the batch that writes the attribute.
     */
    public void setXattr(Transaction transaction, String volumeId, InodeRecord record, String name, byte[] value,
            OperationContext context) {
        transaction.put(KvLayout.xattr(volumeId, record.inode(), name), value);
        touchCtime(transaction, volumeId, record.withMayHaveXattrs(true), context);
    }

    /**
     * Deletes an xattr and stamps the inode's ctime, in the transaction; the inode is marked as having no xattrs when
     * the committed store holds no other one of it (the scan is the price of an exact mark: removexattr is rare, an
     * unlink is not).
     */
    public void removeXattr(Transaction transaction, String volumeId, InodeRecord record, String name,
            OperationContext context) {
        transaction.delete(KvLayout.xattr(volumeId, record.inode(), name));
        boolean othersLeft = xattrNames(volumeId, record.inode()).stream().anyMatch(other -> !other.equals(name));
        touchCtime(transaction, volumeId, record.withMayHaveXattrs(othersLeft), context);
    }

    /** The inode's metadata changed (xattrs): ctime now. */
    private void touchCtime(Transaction transaction, String volumeId, InodeRecord record, OperationContext context) {
        putInode(transaction, volumeId, record.withStat(record.stat().toBuilder().setCtimeNs(context.nowNanos())
                .build()));
    }

    /** The stored attribute names of an inode, sorted (byte order). */
    public List<String> xattrNames(String volumeId, long inode) {
        List<String> names = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KeyRange.prefix(KvLayout.xattrPrefix(volumeId, inode)))) {
            while (iterator.hasNext()) {
                names.add(KvLayout.xattrName(volumeId, iterator.next().key()));
            }
        }
        return names;
    }

    // ------------------------------------------------------------------------- MRC-wide values

    public Optional<String> mrcValue(String name) {
        return store.get(KvLayout.mrcValue(name)).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    /** Stores an MRC-wide value, synced: it is written once at first start (the uuid). */
    public void putMrcValue(String name, String value) {
        Transaction transaction = new Transaction(this, Durability.SYNC, null);
        transaction.put(KvLayout.mrcValue(name), value.getBytes(StandardCharsets.UTF_8));
        transaction.commit();
    }

    private static Volume parseVolume(byte[] bytes) {
        try {
            return Volume.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt volume record: " + e.getMessage(), e);
        }
    }
}
