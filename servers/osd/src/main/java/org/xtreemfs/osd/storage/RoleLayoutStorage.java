package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/**
 * Both layouts on one object folder and one metadata store, chosen per file by its replica role
 * ({@code osd.storage.layout=role}, the default): FAST's tail keeps the log-structured layout (random writes reach
 * the disk as appends), the head, a middle and an unreplicated file keep the conventional one.
 *
 * <p>Where a file's data is, is the authority, not its role today. The rule, one place:
 * <ul>
 *   <li>an object is read from and written to the layout that holds it;
 *   <li>an object neither holds goes where the file's other objects are (the log first);
 *   <li>only a file this OSD holds nothing of is placed by the role its XLoc gives this OSD (tail: log).
 * </ul>
 * So a file keeps its layout on this OSD for its life here: when a chain is re-formed and this OSD's role for the
 * file changes (a tail becomes a middle, a middle the tail), its data stays readable and writable where it is, with
 * the same semantics, and only the disk pattern differs from FAST's (a former tail keeps appending to its log). No
 * copying between layouts, so a role change costs nothing and cannot lose data. Even if two first writes of a file
 * raced under different roles and split its objects over both layouts, every object would still be found where it
 * is; file-wide work (truncate, fsync, delete) runs on every layout holding any of the file.
 *
 * <p>File metadata (size, epoch) lives under the same key for both layouts, so either answers it.
 */
public final class RoleLayoutStorage implements ObjectStorage {
    private final KvStore metadataStore;
    /** Both layouts' size records, one authority in memory for the shared store (FileMetadataRecords). */
    private final FileMetadataRecords records;
    private final ObjectStore conventional;
    private final LogStructuredStore log;
    /** One view per role (see {@link #forRole}); index = ordinal. */
    private final ObjectStorage[] views;

    private RoleLayoutStorage(FileMetadataRecords records, ObjectStore conventional, LogStructuredStore log) {
        this.metadataStore = records.store();
        this.records = records;
        this.conventional = conventional;
        this.log = log;
        ReplicaRole[] roles = ReplicaRole.values();
        this.views = new ObjectStorage[roles.length];
        for (ReplicaRole role : roles) {
            views[role.ordinal()] = new RoleView(role);
        }
    }

    /** Opens both layouts under {@code root} on one RocksDB metadata store; {@link #close()} closes all three. */
    public static RoleLayoutStorage open(Path root, StorageDevice device, LogStructuredStore.Options logOptions)
            throws IOException {
        return open(root, device, logOptions, ObjectStore.OPEN_OBJECT_FILES_MAX_DEFAULT);
    }

    /** As above; the conventional part keeps up to {@code openObjectFilesMax} object files open between accesses. */
    public static RoleLayoutStorage open(Path root, StorageDevice device, LogStructuredStore.Options logOptions,
            int openObjectFilesMax) throws IOException {
        org.xtreemfs.foundation.files.PrivateFiles.folder(root);
        KvStore store = RocksKvStore.open(RocksKvOptions.defaults(root.resolve(ObjectStore.METADATA_FOLDER)));
        try {
            FileMetadataRecords records = new FileMetadataRecords(store);
            ObjectStore conventional = new ObjectStore(root, records, device, openObjectFilesMax);
            return new RoleLayoutStorage(records, conventional,
                    LogStructuredStore.open(root, records, device, logOptions));
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** The log, for its compactor. */
    public LogStructuredStore log() {
        return log;
    }

    /** The conventional layout (object files), for its read-ahead. */
    public ObjectStore conventional() {
        return conventional;
    }

    /** The layout a new object of a file goes to when this OSD has the given role for it. */
    static boolean placesInLog(ReplicaRole role) {
        return role == ReplicaRole.TAIL;
    }

    /** The layout holding the object; else the file's layout; else the role's. */
    private ObjectStorage forObject(String fileId, long objectNumber, ReplicaRole role) {
        // An object is in one layout only (its writes are ordered, and each goes where it is), so an object file the
        // conventional layout holds open is its place: no lookup in the log and no stat of the file's path per write.
        if (conventional.holdsOpen(fileId, objectNumber)) {
            return conventional;
        }
        if (log.holdsObject(fileId, objectNumber)) {
            return log;
        }
        // Unless the log holds some of the file, the object's place is the file's place whether its object file exists
        // or not (an existing one lies in the file's conventional folder), so only then is its path looked up: a stat
        // of a path that does not exist yet, every new object of a sequential write, costs a NoSuchFileException on
        // Java 17 (Files.exists 1.9 % of an OSD's samples, tests/bench/fuse/README.md, session 12).
        if (log.exists(fileId)) {
            return Files.exists(conventional.objectPath(fileId, objectNumber)) ? conventional : log;
        }
        return forFile(fileId, role);
    }

    /** The layout holding the file's objects (the log first); for a file held by neither, the role's. */
    private ObjectStorage forFile(String fileId, ReplicaRole role) {
        if (log.exists(fileId)) {
            return log;
        }
        if (!placesInLog(role) || conventional.exists(fileId)) { // the role first: no folder lookup unless a tail
            return conventional;
        }
        return log;
    }

    /** Where file-wide work of a file goes besides {@code primary}: the other layout, if it holds any of the file. */
    private ObjectStorage other(ObjectStorage primary, String fileId) {
        ObjectStorage other = primary == log ? conventional : log;
        return other.exists(fileId) ? other : null;
    }

    @Override
    public ObjectStorage forRole(ReplicaRole role) {
        return views[role.ordinal()];
    }

    @Override
    public Path root() {
        return conventional.root();
    }

    @Override
    public int read(String fileId, StripeLayout layout, long objectNumber, int offset, int length, ByteBuffer target)
            throws IOException {
        return forRole(ReplicaRole.SOLE).read(fileId, layout, objectNumber, offset, length, target);
    }

    @Override
    public ObjectRegion readRegion(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
            throws IOException {
        return forRole(ReplicaRole.SOLE).readRegion(fileId, layout, objectNumber, offset, length);
    }

    @Override
    public WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
            int truncateEpoch, boolean sync) throws IOException {
        return forRole(ReplicaRole.SOLE).write(fileId, layout, objectNumber, offset, data, truncateEpoch, sync);
    }

    @Override
    public FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
            throws IOException {
        return forRole(ReplicaRole.SOLE).truncate(fileId, layout, newSizeBytes, truncateEpoch);
    }

    @Override
    public void fsync(String fileId) throws IOException {
        forRole(ReplicaRole.SOLE).fsync(fileId);
    }

    @Override
    public FileMetadata metadata(String fileId) throws IOException {
        return records.get(fileId);
    }

    @Override
    public List<Long> storedObjects(String fileId) throws IOException {
        TreeSet<Long> objects = new TreeSet<>(log.storedObjects(fileId));
        objects.addAll(conventional.storedObjects(fileId));
        return List.copyOf(objects);
    }

    @Override
    public boolean exists(String fileId) {
        return log.exists(fileId) || conventional.exists(fileId);
    }

    @Override
    public void deleteFile(String fileId, WriteBatch together, Durability durability) throws IOException {
        ObjectStorage primary = forFile(fileId, ReplicaRole.SOLE);
        ObjectStorage other = other(primary, fileId);
        if (other != null) {
            other.deleteFile(fileId, new WriteBatch(), durability);
        }
        primary.deleteFile(fileId, together, durability);
    }

    /**
     * Files without objects here hold none in either layout ({@link #exists}), so what is left of them, their size
     * records, lies in the metadata store both layouts share: the conventional layout removes it for both, in one
     * batch with {@code together}. The log has nothing of them to drop.
     */
    @Override
    public void deleteFilesWithoutObjects(List<String> fileIds, WriteBatch together, Durability durability)
            throws IOException {
        conventional.deleteFilesWithoutObjects(fileIds, together, durability);
    }

    @Override
    public boolean forEachStoredFile(StoredFileVisitor visitor) throws IOException {
        // A file in both layouts is visited twice; the visitors (the volume reaper) pass over what they queued.
        return conventional.forEachStoredFile(visitor) && log.forEachStoredFile(visitor);
    }

    @Override
    public KvStore metadataStore() {
        return metadataStore;
    }

    @Override
    public void close() {
        try {
            log.close();
            conventional.close();
        } finally {
            metadataStore.close();
        }
    }

    /** The storage as seen by a request that gives this OSD {@code role} for the file: only new files differ. */
    private final class RoleView implements ObjectStorage {
        private final ReplicaRole role;

        RoleView(ReplicaRole role) {
            this.role = role;
        }

        @Override
        public int read(String fileId, StripeLayout layout, long objectNumber, int offset, int length,
                ByteBuffer target) throws IOException {
            // An object neither holds reads as missing from either; the role does not matter.
            ObjectStorage holder = log.holdsObject(fileId, objectNumber) ? log : conventional;
            return holder.read(fileId, layout, objectNumber, offset, length, target);
        }

        @Override
        public ObjectRegion readRegion(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
                throws IOException {
            // Only object files can be sent from; the log's records are read into a buffer (read).
            return log.holdsObject(fileId, objectNumber) ? null
                    : conventional.readRegion(fileId, layout, objectNumber, offset, length);
        }

        @Override
        public WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
                int truncateEpoch, boolean sync) throws IOException {
            return forObject(fileId, objectNumber, role).write(fileId, layout, objectNumber, offset, data,
                    truncateEpoch, sync);
        }

        @Override
        public FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
                throws IOException {
            ObjectStorage primary = forFile(fileId, role);
            ObjectStorage other = other(primary, fileId);
            if (other != null) {
                other.truncate(fileId, layout, newSizeBytes, truncateEpoch);
            }
            return primary.truncate(fileId, layout, newSizeBytes, truncateEpoch);
        }

        @Override
        public void fsync(String fileId) throws IOException {
            ObjectStorage primary = forFile(fileId, role);
            ObjectStorage other = other(primary, fileId);
            if (other != null) {
                other.fsync(fileId);
            }
            primary.fsync(fileId);
        }

        @Override
        public Path root() {
            return RoleLayoutStorage.this.root();
        }

        @Override
        public FileMetadata metadata(String fileId) throws IOException {
            return RoleLayoutStorage.this.metadata(fileId);
        }

        @Override
        public List<Long> storedObjects(String fileId) throws IOException {
            return RoleLayoutStorage.this.storedObjects(fileId);
        }

        @Override
        public boolean exists(String fileId) {
            return RoleLayoutStorage.this.exists(fileId);
        }

        @Override
        public void deleteFile(String fileId, WriteBatch together, Durability durability) throws IOException {
            RoleLayoutStorage.this.deleteFile(fileId, together, durability);
        }

        @Override
        public void deleteFilesWithoutObjects(List<String> fileIds, WriteBatch together, Durability durability)
                throws IOException {
            RoleLayoutStorage.this.deleteFilesWithoutObjects(fileIds, together, durability);
        }

        @Override
        public boolean forEachStoredFile(StoredFileVisitor visitor) throws IOException {
            return RoleLayoutStorage.this.forEachStoredFile(visitor);
        }

        @Override
        public KvStore metadataStore() {
            return metadataStore;
        }

        @Override
        public ObjectStorage forRole(ReplicaRole other) {
            return RoleLayoutStorage.this.forRole(other);
        }

        @Override
        public void close() {
            // a view owns nothing
        }
    }
}
