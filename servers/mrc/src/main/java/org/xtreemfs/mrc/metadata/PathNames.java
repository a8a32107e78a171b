package org.xtreemfs.mrc.metadata;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;

/** Splits volume-relative paths into components and enforces Linux's name and path limits. */
public final class PathNames {
    public static final int NAME_BYTES_MAX = 255;
    public static final int PATH_BYTES_MAX = 4095;

    private PathNames() {}

    /** The components of a '/'-separated path; empty components are skipped; "" and "/" are the root. */
    public static List<String> split(String path) throws RpcException {
        if (path.getBytes(StandardCharsets.UTF_8).length > PATH_BYTES_MAX) {
            throw RpcException.errno(Errno.ENAMETOOLONG, "path longer than " + PATH_BYTES_MAX + " bytes: '"
                    + abbreviate(path) + "'");
        }
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

    public static boolean isDotOrDotDot(String name) {
        return name.equals(".") || name.equals("..");
    }

    /** The text cut to 80 characters, for error messages that name user input. */
    public static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
