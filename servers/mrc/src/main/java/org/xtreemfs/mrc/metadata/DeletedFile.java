package org.xtreemfs.mrc.metadata;

import org.xtreemfs.interfaces.common.XLocSet;

/**
 * A file whose last link an operation removed: its objects on {@code xlocs} are now garbage and the
 * client is handed a write capability to delete them (see the module README, "Deletion").
 */
public record DeletedFile(String volumeId, long inode, XLocSet xlocs, int truncateEpoch) {
    public String fileId() {
        return FileIds.fileId(volumeId, inode);
    }
}
