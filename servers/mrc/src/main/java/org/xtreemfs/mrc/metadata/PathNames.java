package org.xtreemfs.mrc.metadata;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;

/**
 * Splits volume-relative paths into components and enforces the file system's own limits: NAME_MAX
 * (255 bytes per component) and the longest symlink target. A whole path has no limit here: POSIX's
 * PATH_MAX bounds the path a program passes to one system call, relative to its current directory, so a
 * tree entered step by step (cd) may be any depth below the volume root, as on a local file system; the
 * RPC frame limit bounds what one request can carry.
 */
public final class PathNames {
    public static final int NAME_BYTES_MAX = 255;
    /** As Linux: a target is at most PATH_MAX - 1 bytes (readlink(2) into a PATH_MAX buffer keeps its NUL). */
    public static final int SYMLINK_TARGET_BYTES_MAX = 4095;

    private PathNames() {}

    /** The components of a '/'-separated path; empty components are skipped; "" and "/" are the root. */
    public static List<String> split(String path) throws RpcException {
        List<String> components = new ArrayList<>();
        for (String component : path.split("/")) {
            if (component.isEmpty()) {
                continue;
            }
            checkName(component);
            components.add(component);
        }
        return components;
    }

    /** Rejects names longer than 255 bytes (ENAMETOOLONG) or containing NUL (EINVAL). */
    public static void checkName(String name) throws RpcException {
        if (name.getBytes(StandardCharsets.UTF_8).length > NAME_BYTES_MAX) {
            throw RpcException.errno(Errno.ENAMETOOLONG, "file name longer than " + NAME_BYTES_MAX + " bytes: '"
                    + abbreviate(name) + "'");
        }
        if (name.indexOf('\0') >= 0) {
            throw RpcException.errno(Errno.EINVAL, "file name contains a NUL byte: '" + abbreviate(name) + "'");
        }
    }

    /** Rejects symlink targets longer than {@value #SYMLINK_TARGET_BYTES_MAX} bytes (ENAMETOOLONG). */
    public static void checkSymlinkTarget(String target, String linkPath) throws RpcException {
        if (target.getBytes(StandardCharsets.UTF_8).length > SYMLINK_TARGET_BYTES_MAX) {
            throw RpcException.errno(Errno.ENAMETOOLONG, "symlink target longer than " + SYMLINK_TARGET_BYTES_MAX
                    + " bytes for '" + abbreviate(linkPath) + "'");
        }
    }

    public static boolean isDotOrDotDot(String name) {
        return name.equals(".") || name.equals("..");
    }

    /** The text cut to 80 characters, for error messages that name user input. */
    public static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
