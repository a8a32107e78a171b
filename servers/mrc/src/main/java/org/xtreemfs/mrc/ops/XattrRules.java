package org.xtreemfs.mrc.ops;

import java.nio.charset.StandardCharsets;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.PathNames;
import org.xtreemfs.mrc.metadata.Permissions;

/**
 * The rules the four xattr operations share: only {@code user.*} attributes are stored; {@code xtreemfs.*}
 * are computed and read-only ({@link org.xtreemfs.mrc.metadata.LayoutAttributes}).
 */
final class XattrRules {
    static final String USER_XATTR_PREFIX = "user.";
    static final String XTREEMFS_XATTR_PREFIX = "xtreemfs.";

    private XattrRules() {}

    /** Setting or removing {@code name} on {@code record}: a valid user.* name and write access. */
    static void checkWritable(Caller caller, InodeRecord record, String path, String name) throws RpcException {
        if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > PathNames.NAME_BYTES_MAX) {
            throw RpcException.errno(Errno.ERANGE, "invalid attribute name '" + PathNames.abbreviate(name)
                    + "': empty or longer than " + PathNames.NAME_BYTES_MAX + " bytes");
        }
        if (name.startsWith(XTREEMFS_XATTR_PREFIX)) {
            throw RpcException.errno(Errno.EPERM, "attribute '" + name + "' is read-only");
        }
        if (!name.startsWith(USER_XATTR_PREFIX) || name.length() == USER_XATTR_PREFIX.length()) {
            throw RpcException.errno(Errno.ENOTSUP, "attribute '" + name
                    + "' is not in a supported namespace (user.*)");
        }
        if (!record.isRegularFile() && !record.isDirectory()) {
            throw RpcException.errno(Errno.EPERM, "user.* attributes are only allowed on files and directories: '"
                    + path + "'");
        }
        Permissions.check(caller, record.stat(), Permissions.WRITE, path);
    }
}
