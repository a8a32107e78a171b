package org.xtreemfs.mrc.metadata;

import org.xtreemfs.foundation.rpc.RpcException;

/** File ids are "&lt;volume id&gt;:&lt;inode number&gt;" (decimal), shared by MRC, OSD and client. */
public final class FileIds {
    private FileIds() {}

    public static String fileId(String volumeId, long inode) {
        return volumeId + ":" + Long.toUnsignedString(inode);
    }

    /** The (volume id, inode) of a file id; INVALID_ARGS naming the id when it is malformed. */
    public static ParsedFileId parse(String fileId) throws RpcException {
        int colon = fileId.lastIndexOf(':');
        if (colon <= 0 || colon == fileId.length() - 1) {
            throw RpcException.invalidArguments("malformed file id '" + fileId + "': expected <volumeId>:<inode>");
        }
        try {
            return new ParsedFileId(fileId.substring(0, colon), Long.parseUnsignedLong(fileId.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw RpcException.invalidArguments("malformed file id '" + fileId + "': inode is not a number");
        }
    }

    public record ParsedFileId(String volumeId, long inode) {}
}
