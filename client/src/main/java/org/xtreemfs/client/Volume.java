package org.xtreemfs.client;

import com.google.protobuf.ByteString;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.client.cache.MetadataCache;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.interfaces.mrc.AccessRequest;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;
import org.xtreemfs.interfaces.mrc.MkdirRequest;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.ReaddirRequest;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.interfaces.mrc.SetattrField;
import org.xtreemfs.interfaces.mrc.SetattrRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.StatvfsResponse;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.mrc.XattrRequest;

/**
 * An open volume: the POSIX-shaped namespace API, answered by the volume's MRC. Paths are volume-relative and
 * normalised by {@link VolumePath#normalize} ("a/b", "/a//b/" and "/a/./b" name the same file). getattr results
 * are cached for the client's metadata TTL; every change made through this object invalidates the paths it
 * touches before it returns. Errors are {@link XtreemFSException}s naming the operation and the path.
 */
public final class Volume implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Volume.class);
    /** As Linux's MAXSYMLINKS. */
    static final int SYMLINKS_FOLLOWED_MAX = 40;

    private final Client client;
    private final String name;
    private final String volumeId;
    private final String mrcUuid;
    private final MetadataCache<Stat> statCache;

    Volume(Client client, String name, String volumeId, String mrcUuid) {
        this.client = client;
        this.name = name;
        this.volumeId = volumeId;
        this.mrcUuid = mrcUuid;
        this.statCache = new MetadataCache<>(client.options().metadataCacheTtlMs(),
                client.options().metadataCacheEntriesMax(), System::nanoTime);
    }

    public String name() {
        return name;
    }

    /** The volume id the MRC assigned (reservations and file ids are keyed by it). */
    public String id() {
        return volumeId;
    }

    public String mrcUuid() {
        return mrcUuid;
    }

    public Client client() {
        return client;
    }

    // ---- attributes -------------------------------------------------------------------------------------

    /** The attributes of a path (cached for the metadata TTL). */
    public Stat getattr(String path) throws XtreemFSException {
        String normalized = normalize("getattr", path);
        Stat cached = statCache.get(normalized);
        if (cached != null) {
            return cached;
        }
        Stat stat = mrcCall("getattr " + describe(normalized), true,
                (mrc, address) -> mrc.getattr(address, client.credentials(), pathRequest(normalized))).getStat();
        statCache.put(normalized, stat);
        return stat;
    }

    /** Sets the fields of {@code stat} selected by {@code toSet} (an OR of {@link SetattrField} values). */
    public Stat setattr(String path, Stat stat, int toSet) throws XtreemFSException {
        String normalized = normalize("setattr", path);
        if ((toSet & SetattrField.SETATTR_SIZE_VALUE) != 0) {
            truncate(normalized, stat.getSizeBytes());
            toSet &= ~SetattrField.SETATTR_SIZE_VALUE;
            if (toSet == 0) {
                return getattr(normalized);
            }
        }
        int fields = toSet;
        statCache.invalidate(normalized);
        Stat result = mrcCall("setattr " + describe(normalized), true, (mrc, address) -> mrc.setattr(address,
                client.credentials(), SetattrRequest.newBuilder().setVolumeName(name).setPath(normalized)
                        .setStat(stat).setToSet(fields).build())).getStat();
        statCache.invalidate(normalized);
        return result;
    }

    /** Sets the permission bits (the type bits of {@code mode} are ignored). */
    public Stat chmod(String path, int mode) throws XtreemFSException {
        return setattr(path, Stat.newBuilder().setMode(mode & 07777).build(), SetattrField.SETATTR_MODE_VALUE);
    }

    /** Sets owner and group; a negative id leaves that one unchanged. */
    public Stat chown(String path, int uid, int gid) throws XtreemFSException {
        int toSet = (uid >= 0 ? SetattrField.SETATTR_UID_VALUE : 0) | (gid >= 0 ? SetattrField.SETATTR_GID_VALUE : 0);
        if (toSet == 0) {
            return getattr(path);
        }
        return setattr(path, Stat.newBuilder().setUid(Math.max(uid, 0)).setGid(Math.max(gid, 0)).build(), toSet);
    }

    /** Sets access and modification times in nanoseconds since the epoch. */
    public Stat utimens(String path, long atimeNs, long mtimeNs) throws XtreemFSException {
        return setattr(path, Stat.newBuilder().setAtimeNs(atimeNs).setMtimeNs(mtimeNs).build(),
                SetattrField.SETATTR_ATIME_VALUE | SetattrField.SETATTR_MTIME_VALUE);
    }

    /** Checks access for the client's user: {@code mode} is an OR of R_OK 4, W_OK 2, X_OK 1 (F_OK 0). */
    public void access(String path, int mode) throws XtreemFSException {
        String normalized = normalize("access", path);
        mrcCall("access " + describe(normalized), true, (mrc, address) -> mrc.access(address, client.credentials(),
                AccessRequest.newBuilder().setVolumeName(name).setPath(normalized).setMode(mode).build()));
    }

    public StatvfsResponse statvfs() throws XtreemFSException {
        return mrcCall("statvfs of volume '" + name + "'", true, (mrc, address) -> mrc.statvfs(address,
                client.credentials(), VolumeNameRequest.newBuilder().setVolumeName(name).build()));
    }

    /** Where a file's objects live: XLoc, striping policy, size and the volume's reservation. */
    public FileLayoutResponse fileLayout(String path) throws XtreemFSException {
        String normalized = normalize("get file layout", path);
        return mrcCall("get file layout of " + describe(normalized), true,
                (mrc, address) -> mrc.getFileLayout(address, client.credentials(), pathRequest(normalized)));
    }

    // ---- directories ------------------------------------------------------------------------------------

    public Stat mkdir(String path, int mode) throws XtreemFSException {
        String normalized = normalize("mkdir", path);
        invalidateWithParent(normalized);
        Stat stat = mrcCall("mkdir " + describe(normalized), false, (mrc, address) -> mrc.mkdir(address,
                client.credentials(), MkdirRequest.newBuilder().setVolumeName(name).setPath(normalized)
                        .setMode(mode).build())).getStat();
        invalidateWithParent(normalized);
        return stat;
    }

    public void rmdir(String path) throws XtreemFSException {
        String normalized = normalize("rmdir", path);
        try {
            mrcCall("rmdir " + describe(normalized), false,
                    (mrc, address) -> mrc.rmdir(address, client.credentials(), pathRequest(normalized)));
        } finally {
            statCache.invalidateTree(normalized);
            statCache.invalidate(VolumePath.parent(normalized));
        }
    }

    /** All entries of a directory, read page by page. */
    public List<DirectoryEntry> readdir(String path) throws XtreemFSException {
        List<DirectoryEntry> entries = new ArrayList<>();
        DirectoryIterator iterator = readdirIterator(path, false);
        while (iterator.hasNextEntry()) {
            entries.add(iterator.nextEntry());
        }
        return entries;
    }

    /** Iterates a directory lazily, one MRC page (of the configured size) at a time. */
    public DirectoryIterator readdirIterator(String path, boolean namesOnly) throws XtreemFSException {
        return new DirectoryIterator(normalize("readdir", path), namesOnly);
    }

    /**
     * A lazy directory listing. {@link #hasNextEntry}/{@link #nextEntry} throw the MRC's errors; the
     * {@link Iterator} methods wrap them in an unchecked {@link java.io.UncheckedIOException}.
     */
    public final class DirectoryIterator implements Iterator<DirectoryEntry> {
        private final String path;
        private final boolean namesOnly;
        private List<DirectoryEntry> page = List.of();
        private int indexInPage;
        private long nextOffset;
        /** The last real entry listed ("" before any): the next page continues after it (linear paging). */
        private String lastName = "";
        private boolean endOfDirectory;

        private DirectoryIterator(String path, boolean namesOnly) {
            this.path = path;
            this.namesOnly = namesOnly;
        }

        public boolean hasNextEntry() throws XtreemFSException {
            while (indexInPage >= page.size() && !endOfDirectory) {
                long offset = nextOffset;
                // After a real entry the MRC seeks to its name; by position it would step over every entry before.
                String afterName = offset >= 3 ? lastName : "";
                ReaddirResponse response = mrcCall("readdir " + describe(path) + " at offset " + offset, true,
                        (mrc, address) -> mrc.readdir(address, client.credentials(), ReaddirRequest.newBuilder()
                                .setVolumeName(name).setPath(path).setOffset(offset).setAfterName(afterName)
                                .setLimit(client.options().readdirPageEntries()).setNamesOnly(namesOnly).build()));
                page = response.getEntriesList();
                indexInPage = 0;
                endOfDirectory = response.getEndOfDirectory() || page.isEmpty();
                if (!page.isEmpty()) {
                    lastName = page.get(page.size() - 1).getName();
                    long last = page.get(page.size() - 1).getNextOffset();
                    // A server that leaves next_offset unset still pages correctly by count.
                    nextOffset = last > offset ? last : offset + page.size();
                }
            }
            return indexInPage < page.size();
        }

        public DirectoryEntry nextEntry() throws XtreemFSException {
            if (!hasNextEntry()) {
                throw new NoSuchElementException("no more entries in " + describe(path));
            }
            return page.get(indexInPage++);
        }

        @Override
        public boolean hasNext() {
            try {
                return hasNextEntry();
            } catch (XtreemFSException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public DirectoryEntry next() {
            try {
                return nextEntry();
            } catch (XtreemFSException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    // ---- files and links --------------------------------------------------------------------------------

    /**
     * Opens (or with O_CREAT creates) a file; {@code flags} are Linux open(2) bits ({@link OpenFlags}),
     * {@code mode} the permission bits for a new file. With O_TRUNC the MRC sets the size to 0 under a new
     * truncate epoch and this method then cuts the objects on every OSD of the file. A symbolic link as the
     * last component is followed (relative targets from the link's folder, absolute ones from the volume
     * root), up to {@value #SYMLINKS_FOLLOWED_MAX} links.
     */
    public FileHandle open(String path, int flags, int mode) throws XtreemFSException {
        String normalized = normalize("open", path);
        for (int linksFollowed = 0; ; linksFollowed++) {
            try {
                return openResolved(normalized, flags, mode);
            } catch (XtreemFSException e) {
                // The MRC leaves symbolic links to clients: a link as the last component answers ELOOP.
                String target = e.errno() == Errno.ELOOP ? linkTargetOrNull(normalized) : null;
                if (target == null) {
                    throw e;
                }
                if (linksFollowed >= SYMLINKS_FOLLOWED_MAX) {
                    throw new XtreemFSException(Errno.ELOOP, "open " + describe(path) + ": more than "
                            + SYMLINKS_FOLLOWED_MAX + " symbolic links followed");
                }
                normalized = normalize("open", target.startsWith("/") ? target
                        : VolumePath.parent(normalized) + "/" + target);
            }
        }
    }

    private FileHandle openResolved(String normalized, int flags, int mode) throws XtreemFSException {
        boolean creates = OpenFlags.has(flags, OpenFlags.O_CREAT);
        if (creates || OpenFlags.has(flags, OpenFlags.O_TRUNC)) {
            invalidateWithParent(normalized);
        }
        OpenResponse response = mrcCall("open " + describe(normalized),
                !OpenFlags.has(flags, OpenFlags.O_EXCL) && !OpenFlags.has(flags, OpenFlags.O_TRUNC),
                (mrc, address) -> mrc.open(address, client.credentials(), OpenRequest.newBuilder()
                        .setVolumeName(name).setPath(normalized).setFlags(flags).setMode(mode).build()));
        FileHandle handle = new FileHandle(this, normalized, flags, response.getCredentials(), response.getStat());
        if (OpenFlags.has(flags, OpenFlags.O_TRUNC) && OpenFlags.canWrite(flags)) {
            try {
                handle.truncateObjectsAfterOpen();
            } catch (XtreemFSException e) {
                handle.closeQuietly();
                throw e;
            }
        }
        return handle;
    }

    /** The content of the symbolic link at {@code path}, or null when it is not one. */
    private String linkTargetOrNull(String normalizedPath) {
        try {
            return readlink(normalizedPath);
        } catch (XtreemFSException notALink) {
            return null;
        }
    }

    /** Sets a file's size: opens it for writing, truncates (MRC epoch, then every OSD), closes. */
    public void truncate(String path, long sizeBytes) throws XtreemFSException {
        try (FileHandle handle = open(path, OpenFlags.O_WRONLY, 0)) {
            handle.truncate(sizeBytes);
        }
    }

    /**
     * Removes a name; when it was the file's last link, the MRC has the OSDs delete the file's objects in the
     * background (servers/mrc/README.md, "Deletion").
     */
    public void unlink(String path) throws XtreemFSException {
        String normalized = normalize("unlink", path);
        invalidateWithParent(normalized);
        mrcCall("unlink " + describe(normalized), false,
                (mrc, address) -> mrc.unlink(address, client.credentials(), pathRequest(normalized)));
        statCache.invalidate(normalized);
    }

    /** Renames atomically; a replaced file whose last link that was has its objects deleted by the MRC. */
    public void rename(String sourcePath, String targetPath) throws XtreemFSException {
        rename(sourcePath, targetPath, 0);
    }

    /** Renames with Linux renameat2 flags (RENAME_NOREPLACE 1, RENAME_EXCHANGE 2). */
    public void rename(String sourcePath, String targetPath, int flags) throws XtreemFSException {
        String source = normalize("rename", sourcePath);
        String target = normalize("rename", targetPath);
        String operation = "rename " + describe(source) + " to " + describe(target);
        invalidateTreeWithParent(source);
        invalidateTreeWithParent(target);
        try {
            mrcCall(operation, false, (mrc, address) -> mrc.rename(address, client.credentials(),
                    RenameRequest.newBuilder().setVolumeName(name).setSourcePath(source).setTargetPath(target)
                            .setFlags(flags).build()));
        } finally {
            statCache.invalidateTree(source);
            statCache.invalidateTree(target);
        }
    }

    /** Creates a hard link {@code linkPath} to the existing file {@code existingPath}. */
    public Stat link(String existingPath, String linkPath) throws XtreemFSException {
        String existing = normalize("link", existingPath);
        String link = normalize("link", linkPath);
        invalidateWithParent(existing);
        invalidateWithParent(link);
        return mrcCall("link " + describe(link) + " to " + describe(existing), false,
                (mrc, address) -> mrc.link(address, client.credentials(), LinkRequest.newBuilder()
                        .setVolumeName(name).setTargetPath(existing).setLinkPath(link).build())).getStat();
    }

    /** Creates a symbolic link at {@code linkPath} whose content is {@code target} (not interpreted). */
    public Stat symlink(String target, String linkPath) throws XtreemFSException {
        String link = normalize("symlink", linkPath);
        invalidateWithParent(link);
        return mrcCall("symlink " + describe(link) + " -> '" + target + "'", false,
                (mrc, address) -> mrc.symlink(address, client.credentials(), LinkRequest.newBuilder()
                        .setVolumeName(name).setTargetPath(target).setLinkPath(link).build())).getStat();
    }

    public String readlink(String path) throws XtreemFSException {
        String normalized = normalize("readlink", path);
        return mrcCall("readlink " + describe(normalized), true,
                (mrc, address) -> mrc.readlink(address, client.credentials(), pathRequest(normalized))).getTarget();
    }

    // ---- extended attributes ----------------------------------------------------------------------------

    public byte[] getxattr(String path, String attributeName) throws XtreemFSException {
        String normalized = normalize("getxattr", path);
        return mrcCall("getxattr '" + attributeName + "' of " + describe(normalized), true,
                (mrc, address) -> mrc.getxattr(address, client.credentials(), xattrRequest(normalized,
                        attributeName, ByteString.EMPTY, 0))).getValue().toByteArray();
    }

    /** Sets an attribute; {@code flags}: 0, XATTR_CREATE 1 (fail if present), XATTR_REPLACE 2 (fail if absent). */
    public void setxattr(String path, String attributeName, byte[] value, int flags) throws XtreemFSException {
        String normalized = normalize("setxattr", path);
        statCache.invalidate(normalized);
        mrcCall("setxattr '" + attributeName + "' of " + describe(normalized), flags == 0,
                (mrc, address) -> mrc.setxattr(address, client.credentials(), xattrRequest(normalized,
                        attributeName, ByteString.copyFrom(value), flags)));
    }

    public List<String> listxattr(String path) throws XtreemFSException {
        String normalized = normalize("listxattr", path);
        return mrcCall("listxattr " + describe(normalized), true,
                (mrc, address) -> mrc.listxattr(address, client.credentials(), pathRequest(normalized)))
                .getNamesList();
    }

    public void removexattr(String path, String attributeName) throws XtreemFSException {
        String normalized = normalize("removexattr", path);
        statCache.invalidate(normalized);
        mrcCall("removexattr '" + attributeName + "' of " + describe(normalized), false,
                (mrc, address) -> mrc.removexattr(address, client.credentials(), xattrRequest(normalized,
                        attributeName, ByteString.EMPTY, 0)));
    }

    /** Drops every cached attribute of this volume. */
    public void invalidateCache() {
        statCache.clear();
    }

    /** Volumes hold no resources of their own; closing only drops the cache. */
    @Override
    public void close() {
        statCache.clear();
    }

    // ---- shared with FileHandle --------------------------------------------------------------------------

    /** A call to this volume's MRC; a change ({@code idempotent} false) is sent exactly once ({@link Client#callMrc}). */
    <T> T mrcCall(String operation, boolean idempotent,
            BiFunction<MrcServiceClient, InetSocketAddress, CompletableFuture<T>> call) throws XtreemFSException {
        return client.callMrc(operation, mrcUuid, idempotent, call);
    }

    void invalidate(String normalizedPath) {
        statCache.invalidate(normalizedPath);
    }

    String describe(String normalizedPath) {
        return "'" + name + normalizedPath + "'";
    }

    private PathRequest pathRequest(String normalizedPath) {
        return PathRequest.newBuilder().setVolumeName(name).setPath(normalizedPath).build();
    }

    private XattrRequest xattrRequest(String path, String attributeName, ByteString value, int flags) {
        return XattrRequest.newBuilder().setVolumeName(name).setPath(path).setName(attributeName).setValue(value)
                .setFlags(flags).build();
    }

    private String normalize(String operation, String path) throws XtreemFSException {
        try {
            return VolumePath.normalize(path);
        } catch (IllegalArgumentException e) {
            throw new XtreemFSException(Errno.EINVAL, operation + " in volume '" + name + "': " + e.getMessage());
        }
    }

    private void invalidateWithParent(String normalizedPath) {
        statCache.invalidate(normalizedPath);
        statCache.invalidate(VolumePath.parent(normalizedPath));
    }

    private void invalidateTreeWithParent(String normalizedPath) {
        statCache.invalidateTree(normalizedPath);
        statCache.invalidate(VolumePath.parent(normalizedPath));
    }
}
