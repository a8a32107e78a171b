package org.xtreemfs.client.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.xtreemfs.client.VolumePath;
import org.xtreemfs.client.VolumeUrl;

/**
 * Maps a local path inside a {@code mount.xtreemfs} mount to the volume URL and the path inside the volume,
 * from the kernel's mount table ({@code /proc/self/mountinfo}): mount.xtreemfs mounts with file system type
 * {@code fuse.xtreemfs} and source {@code xtreemfs@scheme://host:port/volume}, the DIR (with the scheme the mount
 * speaks to it, pbrpc or pbrpcs; older mounts wrote none) and volume it was given.
 *
 * <p>Why the mount table and not the mount's {@code xtreemfs.url} xattr: Java reads only {@code user.*}
 * attributes, so the xattr would need a {@code getfattr} process; the mount table is one file read, works
 * for paths the caller may not read, and then the tool asks the MRC exactly as for a URL, so both forms
 * print the same output.
 */
final class MountedPath {
    static final String FILE_SYSTEM_TYPE = "fuse.xtreemfs";
    static final String SOURCE_PREFIX = "xtreemfs@";
    static final Path MOUNT_TABLE = Path.of("/proc/self/mountinfo");

    private record Mount(Path mountPoint, String type, String source) {}

    private MountedPath() {}

    /** Whether {@code argument} names an existing local file (or link), so it is a path, not a URL. */
    static boolean isLocalPath(String argument) {
        if (VolumeUrl.hasScheme(argument)) {
            return false;
        }
        try {
            return Files.exists(Path.of(argument), LinkOption.NOFOLLOW_LINKS);
        } catch (RuntimeException e) {  // not a valid local path name at all
            return false;
        }
    }

    /** The URL of {@code localPath} read from the running system's mount table. */
    static VolumeUrl urlOf(Path localPath) {
        try {
            return urlOf(localPath, Files.readAllLines(MOUNT_TABLE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the mount table " + MOUNT_TABLE + ": " + e.getMessage(), e);
        }
    }

    /**
     * The URL of {@code localPath} given the lines of a mountinfo file. Directories on the way are resolved
     * (symbolic links, ".."), the last name is not: a link is shown itself, as lstat does. Throws
     * IllegalArgumentException naming the path when it is not inside an XtreemFS mount.
     */
    static VolumeUrl urlOf(Path localPath, List<String> mountTableLines) {
        Path real = realPathKeepingLastName(localPath);
        Mount best = null;
        for (String line : mountTableLines) {
            Mount mount = parse(line);
            // Later lines are mounted later and cover earlier ones on the same mount point.
            if (mount != null && real.startsWith(mount.mountPoint())
                    && (best == null || mount.mountPoint().getNameCount() >= best.mountPoint().getNameCount())) {
                best = mount;
            }
        }
        if (best == null || !FILE_SYSTEM_TYPE.equals(best.type()) || !best.source().startsWith(SOURCE_PREFIX)) {
            String where = best == null ? "" : " (it is on " + best.mountPoint() + ", type " + best.type() + ")";
            throw new IllegalArgumentException("'" + localPath + "' is not on an XtreemFS mount" + where
                    + "; give a mounted path or a URL [pbrpc[s]://]host[:port]/volume[/path]");
        }
        VolumeUrl volume = VolumeUrl.parse(best.source().substring(SOURCE_PREFIX.length()));
        String inside = "/" + best.mountPoint().relativize(real).toString();
        return volume.withPath(VolumePath.normalize(inside));
    }

    private static Path realPathKeepingLastName(Path localPath) {
        Path absolute = localPath.toAbsolutePath().normalize();
        try {
            Path parent = absolute.getParent();
            return parent == null ? absolute : parent.toRealPath().resolve(absolute.getFileName());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot resolve '" + localPath + "': " + e.getMessage(), e);
        }
    }

    /**
     * One mountinfo line: "ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER".
     * Null for a line that does not have that shape.
     */
    private static Mount parse(String line) {
        String[] fields = line.split(" ");
        int separator = List.of(fields).indexOf("-");
        if (fields.length < 5 || separator < 6 || separator + 2 >= fields.length) {
            return null;
        }
        return new Mount(Path.of(unescape(fields[4])), unescape(fields[separator + 1]),
                unescape(fields[separator + 2]));
    }

    /** The kernel writes space, tab, newline and backslash in mountinfo as octal escapes (\040 ...). */
    static String unescape(String field) {
        StringBuilder text = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                text.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }
}
