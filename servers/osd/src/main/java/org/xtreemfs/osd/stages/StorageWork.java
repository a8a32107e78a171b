package org.xtreemfs.osd.stages;

import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.VolumeShare;

/** What the storage stage executes, in order per file id: client requests and garbage collection. */
public sealed interface StorageWork {
    String fileId();

    /**
     * A request whose capability was accepted, with the volume it is charged to, that volume's share of this
     * OSD (from the signed capability; best-effort when it carries none), this OSD's view of the file's
     * striping and its link in the file's chain (role, successor).
     */
    record AuthorizedRequest(OsdRequest request, String volumeId, VolumeShare share, int truncateEpoch,
            StripeLayout layout, ChainLink chain) implements StorageWork {
        public AuthorizedRequest {
            java.util.Objects.requireNonNull(share, "share");
            java.util.Objects.requireNonNull(chain, "chain");
        }

        /** A request for an unreplicated file. */
        public AuthorizedRequest(OsdRequest request, String volumeId, VolumeShare share, int truncateEpoch,
                StripeLayout layout) {
            this(request, volumeId, share, truncateEpoch, layout, ChainLink.SOLE);
        }

        /** A request of a volume without a reservation. */
        public AuthorizedRequest(OsdRequest request, String volumeId, int truncateEpoch, StripeLayout layout) {
            this(request, volumeId, VolumeShare.BEST_EFFORT, truncateEpoch, layout);
        }

        @Override
        public String fileId() {
            return request.fileId();
        }

        /**
         * Whether this is a write that reaches the disk before it is answered: the client asked for sync, or this
         * OSD is the tail of the file's chain (which acknowledges only what it holds durably). The one rule the
         * storage stage writes by and the QoS stage charges by.
         */
        public boolean isSyncedWrite() {
            return request instanceof OsdRequest.WriteObject write && (write.sync() || chain.role().writesDurably());
        }
    }

    /** Deletes a file's objects whose deletion became due (see DeletionQueue). */
    record DeleteObjects(String fileId) implements StorageWork {}
}
