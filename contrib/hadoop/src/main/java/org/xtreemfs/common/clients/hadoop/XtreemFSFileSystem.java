package org.xtreemfs.common.clients.hadoop;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.util.Progressable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumePath;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.Stat;

/**
 * Hadoop's FileSystem over XtreemFS-QoS: {@code xtreemfs://DIR-HOST[:PORT]/VOLUME/path} (DIR port 32638 by
 * default). The first path component names the volume; the root {@code /} lists the volumes and is read-only
 * (volumes are made and removed with mkfs.xtreemfs and rmfs.xtreemfs, never by mkdirs or delete). Every call goes
 * through the Java client library: metadata to the volume's MRC, data straight to the OSDs. Semantics follow
 * HDFS where Hadoop leaves a choice (rename returns false rather than replacing a file, unless
 * {@code xtreemfs.rename.overwrite}); contract/xtreemfs.xml in the tests declares them.
 */
public class XtreemFSFileSystem extends FileSystem {
    public static final String SCHEME = "xtreemfs";
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;
    /** As the client library's Volume.open (and Linux's MAXSYMLINKS). */
    private static final int SYMLINKS_FOLLOWED_MAX = 40;
    private static final int RENAME_NOREPLACE = 1;
    private static final int READ_AHEAD_THREADS = 4;

    private URI uri;
    private XtreemFSOptions options;
    private Client client;
    private final Map<String, Volume> volumes = new ConcurrentHashMap<>();
    private ExecutorService readAheadExecutor;
    private Path workingDirectory;

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        setConf(conf);
        if (name.getHost() == null) {
            throw new IllegalArgumentException("an XtreemFS URI names the DIR host: xtreemfs://DIR-HOST[:PORT]/VOLUME/path,"
                    + " not '" + name + "'");
        }
        int port = name.getPort() < 0 ? VolumeUrl.DEFAULT_DIR_PORT : name.getPort();
        uri = URI.create(SCHEME + "://" + name.getHost() + ":" + port);
        options = XtreemFSOptions.from(conf);
        client = Client.connect(new InetSocketAddress(name.getHost(), port),
                ClientOptions.builder().userCredentials(options.credentials()).build());
        readAheadExecutor = Executors.newFixedThreadPool(READ_AHEAD_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "xtreemfs-read-ahead");
            thread.setDaemon(true);
            return thread;
        });
        workingDirectory = getHomeDirectory();
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public URI getUri() {
        return uri;
    }

    @Override
    protected int getDefaultPort() {
        return VolumeUrl.DEFAULT_DIR_PORT;
    }

    /** No delegation tokens: the servers trust the credentials the client sends. */
    @Override
    public String getCanonicalServiceName() {
        return null;
    }

    /** {@code /VOLUME} for the configured default volume, else the root. */
    @Override
    public Path getHomeDirectory() {
        String volume = options.defaultVolumeName();
        return makeQualified(new Path(volume.isEmpty() ? "/" : "/" + volume));
    }

    @Override
    public Path getWorkingDirectory() {
        return workingDirectory;
    }

    @Override
    public void setWorkingDirectory(Path directory) {
        workingDirectory = makeQualified(directory);
    }

    @Override
    public long getDefaultBlockSize() {
        return options.blockSizeBytes();
    }

    @Override
    public short getDefaultReplication() {
        return 1;
    }

    /** Append and POSIX permissions hold everywhere; the rest as Hadoop's defaults say (no concat, no etags). */
    @Override
    public boolean hasPathCapability(Path path, String capability) throws IOException {
        switch (org.apache.hadoop.fs.impl.PathCapabilitiesSupport.validatePathCapabilityArgs(makeQualified(path),
                capability)) {
            case org.apache.hadoop.fs.CommonPathCapabilities.FS_APPEND:
            case org.apache.hadoop.fs.CommonPathCapabilities.FS_PERMISSIONS:
                return true;
            default:
                return super.hasPathCapability(path, capability);
        }
    }

    // ---- paths ----------------------------------------------------------------------------------------

    /** Where a Hadoop path lives: {@code volume} null for the root, {@code path} "/" for a volume's root. */
    private record Location(Path qualified, String volume, String path) {
        boolean isRoot() {
            return volume == null;
        }

        boolean isVolumeRoot() {
            return volume != null && path.equals("/");
        }

        String describe() {
            return qualified.toString();
        }
    }

    private Location locate(Path hadoopPath) throws IOException {
        Path qualified = makeQualified(hadoopPath);
        String full = qualified.toUri().getPath();
        String normalized;
        try {
            normalized = VolumePath.normalize(full.isEmpty() ? "/" : full);
        } catch (IllegalArgumentException e) {
            throw new IOException("invalid path '" + hadoopPath + "': " + e.getMessage(), e);
        }
        if (normalized.equals("/")) {
            return new Location(qualified, null, "/");
        }
        int slash = normalized.indexOf('/', 1);
        String volume = slash < 0 ? normalized.substring(1) : normalized.substring(1, slash);
        String path = slash < 0 ? "/" : normalized.substring(slash);
        return new Location(qualified, volume, path);
    }

    private Volume volume(Location location) throws IOException {
        Volume open = volumes.get(location.volume());
        if (open != null) {
            return open;
        }
        try {
            VolumeUrl.requireValidVolumeName(location.volume());
        } catch (IllegalArgumentException e) {
            throw new FileNotFoundException(location.describe() + ": '" + location.volume() + "' is not a volume name ("
                    + e.getMessage() + ")");
        }
        try {
            open = client.openVolume(location.volume());
        } catch (XtreemFSException e) {
            throw translate(e, location, "no volume '" + location.volume() + "' at the DIR " + uri.getAuthority());
        }
        Volume raced = volumes.putIfAbsent(location.volume(), open);
        return raced != null ? raced : open;
    }

    /** The Hadoop exception for a client failure; {@code notFound} explains ENOENT. */
    private static IOException translate(XtreemFSException e, Location location, String notFound) {
        String message = location.describe() + ": " + e.getMessage();
        IOException translated = switch (e.errno()) {
            case Errno.ENOENT -> new FileNotFoundException(notFound == null ? message : location.describe() + ": "
                    + notFound + " (" + e.getMessage() + ")");
            case Errno.EEXIST -> new FileAlreadyExistsException(message);
            case Errno.ENOTDIR -> new ParentNotDirectoryException(message);
            case Errno.ENOTEMPTY -> new PathIsNotEmptyDirectoryException(message);
            case Errno.EACCES, Errno.EPERM -> new AccessControlException(message);
            default -> null;
        };
        if (translated == null) {
            return e;
        }
        translated.initCause(e);
        return translated;
    }

    private static IOException translate(XtreemFSException e, Location location) {
        return translate(e, location, null);
    }

    private static boolean isSymlink(Stat stat) {
        return (stat.getMode() & S_IFMT) == S_IFLNK;
    }

    /**
     * The attributes of what a symbolic link (made by another client, e.g. through FUSE) points to, as
     * {@link Volume#open} follows it: relative targets from the link's folder, absolute ones from the volume root,
     * at most {@value #SYMLINKS_FOLLOWED_MAX} links; null when it dangles. Other stats are returned as they are.
     */
    private static Stat followLinks(Volume volume, String path, Stat stat) throws XtreemFSException {
        String current = path;
        for (int followed = 0; isSymlink(stat); followed++) {
            if (followed == SYMLINKS_FOLLOWED_MAX) {
                throw new XtreemFSException(Errno.ELOOP, "'" + volume.name() + path + "': more than "
                        + SYMLINKS_FOLLOWED_MAX + " symbolic links followed");
            }
            String target = volume.readlink(current);
            current = target.startsWith("/") ? target
                    : (current.lastIndexOf('/') == 0 ? "" : current.substring(0, current.lastIndexOf('/'))) + "/" + target;
            try {
                stat = volume.getattr(current);
            } catch (XtreemFSException e) {
                if (e.errno() == Errno.ENOENT || e.errno() == Errno.ENOTDIR) {
                    return null;
                }
                throw e;
            }
        }
        return stat;
    }

    private static boolean isDirectory(Stat stat) {
        return (stat.getMode() & S_IFMT) == S_IFDIR;
    }

    /** The path's attributes, or null when it does not exist. */
    private Stat statOrNull(Location location) throws IOException {
        try {
            return volume(location).getattr(location.path());
        } catch (FileNotFoundException noVolume) {
            return null;
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.ENOENT || e.errno() == Errno.ENOTDIR) {
                return null;
            }
            throw translate(e, location);
        }
    }

    // ---- status ---------------------------------------------------------------------------------------

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        statistics.incrementReadOps(1);
        Location location = locate(path);
        if (location.isRoot()) {
            return rootStatus(location.qualified());
        }
        Stat stat = statOrNull(location);
        if (stat == null) {
            throw new FileNotFoundException(location.describe() + ": no such file or directory");
        }
        try {
            stat = followLinks(volume(location), location.path(), stat);
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
        if (stat == null) {
            throw new FileNotFoundException(location.describe() + ": a symbolic link to nothing");
        }
        return toStatus(stat, location.qualified());
    }

    private FileStatus rootStatus(Path qualified) {
        // The root only lists volumes: read-only for everyone.
        return new FileStatus(0, true, 1, 0, 0, 0, new FsPermission((short) 0555), "root", "root", qualified);
    }

    private FileStatus toStatus(Stat stat, Path qualified) {
        boolean directory = isDirectory(stat);
        long blockSize = directory ? 0 : blockSize(stat.getBlksize());
        return new FileStatus(directory ? 0 : stat.getSizeBytes(), directory, 1, blockSize,
                stat.getMtimeNs() / 1_000_000, stat.getAtimeNs() / 1_000_000,
                new FsPermission((short) (stat.getMode() & 07777)), ownerName(stat.getUid()),
                String.valueOf(stat.getGid()), qualified);
    }

    /** The configured block size rounded up to whole objects, so a block never splits an object. */
    private long blockSize(long objectSizeBytes) {
        long configured = options.blockSizeBytes();
        if (objectSizeBytes <= 0) {
            return configured;
        }
        return (configured + objectSizeBytes - 1) / objectSizeBytes * objectSizeBytes;
    }

    /** The client's own user by name, every other owner by its numeric uid (the servers know no names). */
    private String ownerName(int uid) {
        return uid == options.credentials().getUid() ? options.credentials().getUsername() : String.valueOf(uid);
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        List<FileStatus> statuses = new ArrayList<>();
        RemoteIterator<FileStatus> iterator = listStatusIterator(path);
        while (iterator.hasNext()) {
            statuses.add(iterator.next());
        }
        return statuses.toArray(new FileStatus[0]);
    }

    /** Lists page by page (the client's readdir page size): large directories are never held at once. */
    @Override
    public RemoteIterator<FileStatus> listStatusIterator(Path path) throws IOException {
        statistics.incrementLargeReadOps(1);
        Location location = locate(path);
        if (location.isRoot()) {
            List<FileStatus> volumeStatuses = new ArrayList<>();
            for (org.xtreemfs.interfaces.mrc.Volume listed : client.listVolumes()) {
                Path volumePath = new Path(location.qualified(), listed.getName());
                Stat stat = statOrNull(locate(volumePath));
                if (stat != null) {
                    volumeStatuses.add(toStatus(stat, volumePath));
                }
            }
            return listOf(volumeStatuses);
        }
        Stat stat = statOrNull(location);
        if (stat == null) {
            throw new FileNotFoundException(location.describe() + ": no such file or directory");
        }
        if (!isDirectory(stat)) {
            return listOf(List.of(toStatus(stat, location.qualified())));
        }
        Volume.DirectoryIterator entries;
        try {
            entries = volume(location).readdirIterator(location.path(), false);
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
        return new RemoteIterator<>() {
            private FileStatus next;

            @Override
            public boolean hasNext() throws IOException {
                try {
                    while (next == null && entries.hasNextEntry()) {
                        DirectoryEntry entry = entries.nextEntry();
                        if (!entry.getName().equals(".") && !entry.getName().equals("..")) {
                            Stat stat = entry.getStat();
                            if (isSymlink(stat)) {
                                String child = (location.path().equals("/") ? "" : location.path()) + "/"
                                        + entry.getName();
                                Stat target = followLinks(volume(location), child, stat);
                                stat = target != null ? target : stat; // a dangling link is listed as itself
                            }
                            next = toStatus(stat, new Path(location.qualified(), entry.getName()));
                        }
                    }
                } catch (XtreemFSException e) {
                    throw translate(e, location);
                }
                return next != null;
            }

            @Override
            public FileStatus next() throws IOException {
                if (!hasNext()) {
                    throw new NoSuchElementException("no more entries in " + location.describe());
                }
                FileStatus result = next;
                next = null;
                return result;
            }
        };
    }

    private static RemoteIterator<FileStatus> listOf(List<FileStatus> statuses) {
        return new RemoteIterator<>() {
            private int index;

            @Override
            public boolean hasNext() {
                return index < statuses.size();
            }

            @Override
            public FileStatus next() {
                if (index >= statuses.size()) {
                    throw new NoSuchElementException();
                }
                return statuses.get(index++);
            }
        };
    }

    /** The permission bits a new file or directory gets: {@code permission} less the configured umask. */
    private int maskedMode(FsPermission permission) {
        return permission.applyUMask(FsPermission.getUMask(getConf())).toShort() & 07777;
    }

    // ---- directories ----------------------------------------------------------------------------------

    @Override
    public boolean mkdirs(Path path, FsPermission permission) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = locate(path);
        if (location.isRoot()) {
            return true;
        }
        Volume volume = volume(location);
        int mode = maskedMode(permission);
        String[] components = location.path().substring(1).split("/");
        StringBuilder prefix = new StringBuilder();
        for (int index = 0; index < components.length && !components[0].isEmpty(); index++) {
            prefix.append('/').append(components[index]);
            boolean last = index == components.length - 1;
            Location step = new Location(new Path(uri.toString() + "/" + location.volume() + prefix), location.volume(),
                    prefix.toString());
            Stat stat = statOrNull(step);
            if (stat == null) {
                try {
                    volume.mkdir(step.path(), mode);
                    continue;
                } catch (XtreemFSException e) {
                    if (e.errno() != Errno.EEXIST) {
                        throw translate(e, step);
                    }
                    stat = volume.getattr(step.path()); // made concurrently: check what it is
                }
            }
            if (!isDirectory(stat)) {
                throw last ? new FileAlreadyExistsException(step.describe() + ": exists as a file")
                        : new ParentNotDirectoryException(step.describe() + ": is a file, not a directory (making "
                                + location.describe() + ")");
            }
        }
        return true;
    }

    // ---- files ----------------------------------------------------------------------------------------

    @Override
    public FSDataInputStream open(Path path, int bufferSize) throws IOException {
        statistics.incrementReadOps(1);
        Location location = locate(path);
        if (location.isRoot() || location.isVolumeRoot()) {
            throw new FileNotFoundException(location.describe() + ": is a directory");
        }
        FileHandle handle;
        try {
            handle = volume(location).open(location.path(), OpenFlags.O_RDONLY, 0);
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.EISDIR) {
                throw new FileNotFoundException(location.describe() + ": is a directory");
            }
            throw translate(e, location);
        }
        return new FSDataInputStream(new XtreemFSInputStream(handle, location.describe(), statistics,
                readAheadExecutor, options.readBuffered(), options.readBufferBytes()));
    }

    /**
     * Creates (or with {@code overwrite} truncates) a file; missing parent directories are made. The permission
     * is masked by the configured umask. {@code replication} is ignored (one replica; reliability comes from the
     * servers' storage), {@code blockSize} too (the volume's striping policy decides the layout), and so is
     * {@code bufferSize}: {@code xtreemfs.io.buffer.size.write} sizes the buffer.
     */
    @Override
    public FSDataOutputStream create(Path path, FsPermission permission, boolean overwrite, int bufferSize,
            short replication, long blockSize, Progressable progress) throws IOException {
        Location location = locate(path);
        if (location.isRoot() || location.isVolumeRoot()) {
            throw new FileAlreadyExistsException(location.describe() + ": is a directory");
        }
        Stat existing = statOrNull(location);
        if (existing != null && isDirectory(existing)) {
            throw new FileAlreadyExistsException(location.describe() + ": is a directory");
        }
        if (existing != null && !overwrite) {
            throw new FileAlreadyExistsException(location.describe() + ": exists and overwrite is false");
        }
        Path parent = location.qualified().getParent();
        if (parent != null) {
            mkdirs(parent, FsPermission.getDirDefault());
        }
        return createFile(location, permission, overwrite);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path path, FsPermission permission,
            java.util.EnumSet<org.apache.hadoop.fs.CreateFlag> flags, int bufferSize, short replication,
            long blockSize, Progressable progress) throws IOException {
        Location location = locate(path);
        Path parent = location.qualified().getParent();
        if (parent != null && !getFileStatus(parent).isDirectory()) {
            throw new ParentNotDirectoryException(parent + ": is not a directory");
        }
        boolean overwrite = flags.contains(org.apache.hadoop.fs.CreateFlag.OVERWRITE);
        Stat existing = statOrNull(location);
        if (existing != null && (isDirectory(existing) || !overwrite)) {
            throw new FileAlreadyExistsException(location.describe() + (isDirectory(existing) ? ": is a directory"
                    : ": exists and overwrite is not set"));
        }
        return createFile(location, permission, overwrite);
    }

    private FSDataOutputStream createFile(Location location, FsPermission permission, boolean overwrite)
            throws IOException {
        statistics.incrementWriteOps(1);
        int mode = maskedMode(permission);
        int flags = OpenFlags.O_CREAT | OpenFlags.O_WRONLY | (overwrite ? OpenFlags.O_TRUNC : OpenFlags.O_EXCL);
        FileHandle handle;
        try {
            handle = volume(location).open(location.path(), flags, mode);
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.EISDIR) {
                throw new FileAlreadyExistsException(location.describe() + ": is a directory");
            }
            throw translate(e, location);
        }
        return new FSDataOutputStream(new XtreemFSOutputStream(handle, location.describe(), 0,
                options.writeBuffered(), options.writeBufferBytes()), statistics);
    }

    /** Appends at the file's current end (single writer: see the client's O_APPEND rule). */
    @Override
    public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = locate(path);
        if (location.isRoot() || location.isVolumeRoot()) {
            throw new FileAlreadyExistsException(location.describe() + ": is a directory");
        }
        FileHandle handle;
        try {
            handle = volume(location).open(location.path(), OpenFlags.O_WRONLY | OpenFlags.O_APPEND, 0);
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.EISDIR) {
                throw new FileAlreadyExistsException(location.describe() + ": is a directory");
            }
            throw translate(e, location);
        }
        return new FSDataOutputStream(new XtreemFSOutputStream(handle, location.describe(), handle.sizeBytes(),
                options.writeBuffered(), options.writeBufferBytes()), statistics, handle.sizeBytes());
    }

    // ---- rename and delete ----------------------------------------------------------------------------

    /**
     * Hadoop's rename: into an existing directory the source keeps its name; false (nothing changed) when the
     * source is missing, the destination's parent is missing, the destination exists (a file, unless
     * {@code xtreemfs.rename.overwrite}), or the destination is inside the source. Atomic (one MRC operation).
     * Volumes and the root cannot be renamed; renaming between volumes is refused with an IOException.
     */
    @Override
    public boolean rename(Path sourcePath, Path targetPath) throws IOException {
        statistics.incrementWriteOps(1);
        Location source = locate(sourcePath);
        Location target = locate(targetPath);
        if (source.isRoot() || source.isVolumeRoot() || target.isRoot()) {
            return false;
        }
        if (!source.volume().equals(target.volume())) {
            throw new IOException("cannot rename " + source.describe() + " to " + target.describe()
                    + ": they are on different volumes");
        }
        Stat sourceStat = statOrNull(source);
        if (sourceStat == null) {
            return false;
        }
        if (source.path().equals(target.path())) {
            return !isDirectory(sourceStat);
        }
        if (target.path().startsWith(source.path() + "/")) {
            return false;
        }
        Stat targetStat = statOrNull(target);
        boolean replace = false;
        if (targetStat != null && isDirectory(targetStat)) {
            String name = source.path().substring(source.path().lastIndexOf('/') + 1);
            target = new Location(new Path(target.qualified(), name), target.volume(),
                    (target.path().equals("/") ? "" : target.path()) + "/" + name);
            if (target.path().equals(source.path())) {
                return false;
            }
            targetStat = statOrNull(target);
        }
        if (targetStat != null) {
            if (isDirectory(targetStat) || isDirectory(sourceStat) || !options.renameOverwrites()) {
                return false;
            }
            replace = true;
        } else {
            Stat parent = statOrNull(locate(target.qualified().getParent()));
            if (parent == null || !isDirectory(parent)) {
                return false;
            }
        }
        try {
            volume(source).rename(source.path(), target.path(), replace ? 0 : RENAME_NOREPLACE);
            return true;
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.EEXIST || e.errno() == Errno.ENOENT || e.errno() == Errno.EINVAL
                    || e.errno() == Errno.ENOTEMPTY || e.errno() == Errno.ENOTDIR) {
                return false;
            }
            throw translate(e, source);
        }
    }

    /**
     * Deletes a file, or a directory (with its contents when {@code recursive}); false when nothing was there.
     * The root and volume roots are never removed (volumes go with rmfs.xtreemfs): a recursive delete of a volume
     * root removes its contents and returns false, the root answers false.
     */
    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = locate(path);
        if (location.isRoot()) {
            return false;
        }
        Stat stat = statOrNull(location);
        if (stat == null) {
            return false;
        }
        Volume volume = volume(location);
        try {
            if (!isDirectory(stat)) {
                volume.unlink(location.path());
                return true;
            }
            if (!recursive) {
                if (hasEntries(volume, location.path())) {
                    throw new PathIsNotEmptyDirectoryException(location.describe() + ": directory is not empty");
                }
            } else {
                deleteContents(volume, location.path());
            }
            if (location.isVolumeRoot()) {
                return false;
            }
            volume.rmdir(location.path());
            return true;
        } catch (XtreemFSException e) {
            if (e.errno() == Errno.ENOENT) {
                return false;
            }
            throw translate(e, location);
        }
    }

    private static boolean hasEntries(Volume volume, String directory) throws XtreemFSException {
        Volume.DirectoryIterator names = volume.readdirIterator(directory, true);
        while (names.hasNextEntry()) {
            String name = names.nextEntry().getName();
            if (!name.equals(".") && !name.equals("..")) {
                return true;
            }
        }
        return false;
    }

    private void deleteContents(Volume volume, String directory) throws XtreemFSException {
        // Names first, then removal: the listing's offsets stay valid while nothing is removed.
        List<DirectoryEntry> entries = volume.readdir(directory);
        String prefix = directory.equals("/") ? "/" : directory + "/";
        for (DirectoryEntry entry : entries) {
            if (entry.getName().equals(".") || entry.getName().equals("..")) {
                continue;
            }
            String child = prefix + entry.getName();
            if (isDirectory(entry.getStat())) {
                deleteContents(volume, child);
                volume.rmdir(child);
            } else {
                volume.unlink(child);
            }
        }
    }

    // ---- attributes -----------------------------------------------------------------------------------

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = requireInVolume(path, "set the permission of");
        try {
            volume(location).chmod(location.path(), permission.toShort() & 07777);
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
    }

    /** Owner and group as numeric ids, or the client's own user name; null leaves one unchanged. */
    @Override
    public void setOwner(Path path, String owner, String group) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = requireInVolume(path, "set the owner of");
        int uid = owner == null ? -1 : owner.equals(options.credentials().getUsername())
                ? options.credentials().getUid() : numericId("owner", owner, location);
        int gid = group == null ? -1 : numericId("group", group, location);
        try {
            volume(location).chown(location.path(), uid, gid);
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
    }

    private static int numericId(String what, String value, Location location) throws IOException {
        try {
            int id = Integer.parseInt(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException notNumeric) {
            // reported below
        }
        throw new IOException("cannot set the " + what + " of " + location.describe() + " to '" + value
                + "': XtreemFS-QoS keeps numeric ids; give a uid or gid");
    }

    /** Times in milliseconds since the epoch; -1 leaves one unchanged. */
    @Override
    public void setTimes(Path path, long mtimeMs, long atimeMs) throws IOException {
        statistics.incrementWriteOps(1);
        Location location = requireInVolume(path, "set the times of");
        try {
            Volume volume = volume(location);
            Stat current = mtimeMs < 0 || atimeMs < 0 ? volume.getattr(location.path()) : null;
            long atimeNs = atimeMs < 0 ? current.getAtimeNs() : atimeMs * 1_000_000;
            long mtimeNs = mtimeMs < 0 ? current.getMtimeNs() : mtimeMs * 1_000_000;
            volume.utimens(location.path(), atimeNs, mtimeNs);
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
    }

    private Location requireInVolume(Path path, String operation) throws IOException {
        Location location = locate(path);
        if (location.isRoot()) {
            throw new AccessControlException("cannot " + operation + " the root " + location.describe()
                    + ": it lists the volumes and is read-only");
        }
        return location;
    }

    // ---- locality -------------------------------------------------------------------------------------

    /**
     * Per block (the file status's block size) the OSDs that store its objects, by host name, so schedulers
     * place tasks next to the data. Empty past the end of the file.
     */
    @Override
    public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long length) throws IOException {
        if (file == null) {
            return null;
        }
        if (start < 0 || length < 0) {
            throw new IllegalArgumentException("negative start " + start + " or length " + length + " for "
                    + file.getPath());
        }
        if (file.isDirectory() || start >= file.getLen()) {
            return new BlockLocation[0];
        }
        statistics.incrementReadOps(1);
        Location location = locate(file.getPath());
        FileLayoutResponse layout;
        try {
            layout = volume(location).fileLayout(location.path());
        } catch (XtreemFSException e) {
            throw translate(e, location);
        }
        Replica replica = layout.getXlocs().getReplicas(0);
        List<String> osdUuids = replica.getOsdUuidsList();
        List<InetSocketAddress> osdAddresses = new ArrayList<>();
        for (String osdUuid : osdUuids) {
            osdAddresses.add(client.resolve(osdUuid));
        }
        int objectSize = replica.getStripingPolicy().getObjectSizeBytes();
        int width = replica.getStripingPolicy().getWidth() > 0
                ? Math.min(replica.getStripingPolicy().getWidth(), osdUuids.size()) : osdUuids.size();
        return BlockLocations.of(new org.xtreemfs.client.striping.StripeLayout(objectSize, width), osdAddresses,
                file.getBlockSize() > 0 ? file.getBlockSize() : blockSize(objectSize), file.getLen(), start, length);
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            volumes.values().forEach(Volume::close);
            volumes.clear();
            if (readAheadExecutor != null) {
                readAheadExecutor.shutdownNow();
            }
            if (client != null) {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "XtreemFSFileSystem{" + uri + "}";
    }
}
