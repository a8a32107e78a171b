package org.xtreemfs.osd.stages;

import org.xtreemfs.osd.storage.StripeLayout;

/** What the storage stage executes, in order per file id: client requests and garbage collection. */
public sealed interface StorageWork {
    String fileId();

    /**
     * A request whose capability was accepted, with the volume it is charged to and this OSD's view of the
     * file's striping.
     */
    record AuthorizedRequest(OsdRequest request, String volumeId, int truncateEpoch, StripeLayout layout)
            implements StorageWork {
        @Override
        public String fileId() {
            return request.fileId();
        }
    }

    /** Deletes a file's objects whose deletion became due (see DeletionQueue). */
    record DeleteObjects(String fileId) implements StorageWork {}
}
