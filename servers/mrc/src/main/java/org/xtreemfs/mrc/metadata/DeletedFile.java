package org.xtreemfs.mrc.metadata;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * A file whose last link an operation removed: its objects on {@code xlocs} are now garbage. The operation records
 * it in its own batch ({@link Namespace#dropLink}, key kind 'G'), and the MRC's {@code ObjectDeletions} has every OSD
 * of the XLoc queue the objects' deletion (see the module README, "Deletion").
 */
public record DeletedFile(String volumeId, long inode, XLocSet xlocs, int truncateEpoch) {
    public String fileId() {
        return FileIds.fileId(volumeId, inode);
    }

    /** The value of the file's deletion record: the truncate epoch (4 bytes, big-endian), then the XLoc. */
    byte[] encodeObjects() {
        byte[] xlocBytes = xlocs.toByteArray();
        return ByteBuffer.allocate(Integer.BYTES + xlocBytes.length).putInt(truncateEpoch).put(xlocBytes).array();
    }

    /** The file a deletion record of {@link #encodeObjects} names; a corrupt record names its file. */
    static DeletedFile decodeObjects(String volumeId, long inode, byte[] value) {
        try {
            if (value.length < Integer.BYTES) {
                throw new InvalidProtocolBufferException("record of " + value.length + " bytes");
            }
            return new DeletedFile(volumeId, inode,
                    XLocSet.parseFrom(Arrays.copyOfRange(value, Integer.BYTES, value.length)),
                    ByteBuffer.wrap(value).getInt());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt deletion record of file " + FileIds.fileId(volumeId, inode)
                    + ": " + e.getMessage(), e);
        }
    }
}
