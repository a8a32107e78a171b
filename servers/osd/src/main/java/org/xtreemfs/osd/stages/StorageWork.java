package org.xtreemfs.osd.stages;

import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.VolumeShare;

/** What the storage stage executes, in order per file id: client requests and garbage collection. */
public sealed interface StorageWork {
    String fileId();

    /**
     * A request whose capability was accepted, with the volume it is charged to, that volume's share of this
     * OSD (from the signed capability; best-effort when it carries none) and this OSD's view of the file's
     * striping.
     */
    record AuthorizedRequest(OsdRequest request, String volumeId, VolumeShare share, int truncateEpoch,
            StripeLayout layout) implements StorageWork {
        public AuthorizedRequest {
            java.util.Objects.requireNonNull(share, "share");
        }

        /** A request of a volume without a reservation. */
        public AuthorizedRequest(OsdRequest request, String volumeId, int truncateEpoch, StripeLayout layout) {
            this(request, volumeId, VolumeShare.BEST_EFFORT, truncateEpoch, layout);
        }

        @Override
        public String fileId() {
            return request.fileId();
        }
    }

    /** Deletes a file's objects whose deletion became due (see DeletionQueue). */
    record DeleteObjects(String fileId) implements StorageWork {}
}
