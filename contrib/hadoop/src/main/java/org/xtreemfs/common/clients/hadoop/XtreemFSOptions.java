package org.xtreemfs.common.clients.hadoop;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * The adapter's configuration keys, read once per file system instance: the one place they are named, parsed and
 * checked (contrib/hadoop/README.md documents each). Sizes are bytes.
 *
 * @param defaultVolumeName the volume relative paths and the home directory resolve into; empty for none
 * @param credentials the identity sent with every request
 * @param readBuffered whether input streams read through a buffer (with read-ahead on sequential scans)
 * @param readBufferBytes the size of one buffered read
 * @param writeBuffered whether output streams collect writes in a buffer before sending them
 * @param writeBufferBytes the size of the write buffer
 * @param renameOverwrites whether rename replaces an existing destination file (POSIX) instead of returning
 *        false (HDFS)
 * @param blockSizeBytes the block size reported in file statuses and used to cut block locations; rounded up per
 *        file to a whole stripe (object size times width)
 */
record XtreemFSOptions(String defaultVolumeName, UserCredentials credentials, boolean readBuffered,
        int readBufferBytes, boolean writeBuffered, int writeBufferBytes, boolean renameOverwrites,
        long blockSizeBytes) {

    static final String DEFAULT_VOLUME_NAME = "xtreemfs.defaultVolumeName";
    static final String USER_ID = "xtreemfs.client.userid";
    static final String GROUP_ID = "xtreemfs.client.groupid";
    static final String READ_BUFFERED = "xtreemfs.io.buffer.read";
    static final String READ_BUFFER_SIZE = "xtreemfs.io.buffer.size.read";
    static final String WRITE_BUFFERED = "xtreemfs.io.buffer.write";
    static final String WRITE_BUFFER_SIZE = "xtreemfs.io.buffer.size.write";
    static final String RENAME_OVERWRITE = "xtreemfs.rename.overwrite";
    static final String BLOCK_SIZE = "xtreemfs.blockSize";

    static final int BUFFER_BYTES_DEFAULT = 1 << 20;
    /** Larger buffers would exceed what one call may hand the client library at once with room to spare. */
    static final int BUFFER_BYTES_MAX = 64 << 20;
    static final long BLOCK_SIZE_BYTES_DEFAULT = 128L << 20;

    static XtreemFSOptions from(Configuration conf) {
        UserCredentials current = ClientOptions.currentUser();
        String user = conf.getTrimmed(USER_ID, "");
        String group = conf.getTrimmed(GROUP_ID, "");
        UserCredentials credentials = current;
        if (!user.isEmpty() || !group.isEmpty()) {
            int uid = user.isEmpty() ? current.getUid() : nonNegativeId(USER_ID, user);
            int gid = group.isEmpty() ? current.getGid() : nonNegativeId(GROUP_ID, group);
            String name = uid == current.getUid() ? current.getUsername() : String.valueOf(uid);
            credentials = ClientOptions.user(name, uid, gid,
                    gid == current.getGid() ? current.getSupplementaryGidsList() : List.of());
        }
        return new XtreemFSOptions(conf.getTrimmed(DEFAULT_VOLUME_NAME, ""), credentials,
                conf.getBoolean(READ_BUFFERED, true), bufferBytes(conf, READ_BUFFER_SIZE),
                conf.getBoolean(WRITE_BUFFERED, true), bufferBytes(conf, WRITE_BUFFER_SIZE),
                conf.getBoolean(RENAME_OVERWRITE, false), blockSize(conf));
    }

    private static int nonNegativeId(String key, String value) {
        try {
            int id = Integer.parseInt(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new IllegalArgumentException(key + " must be a numeric id (0 or more), got '" + value + "'");
    }

    private static int bufferBytes(Configuration conf, String key) {
        long bytes = conf.getLongBytes(key, BUFFER_BYTES_DEFAULT);
        if (bytes < 1 || bytes > BUFFER_BYTES_MAX) {
            throw new IllegalArgumentException(key + " must be between 1 and " + BUFFER_BYTES_MAX + " bytes, got "
                    + conf.get(key));
        }
        return (int) bytes;
    }

    private static long blockSize(Configuration conf) {
        long bytes = conf.getLongBytes(BLOCK_SIZE, BLOCK_SIZE_BYTES_DEFAULT);
        if (bytes < 1) {
            throw new IllegalArgumentException(BLOCK_SIZE + " must be positive, got " + conf.get(BLOCK_SIZE));
        }
        return bytes;
    }
}
