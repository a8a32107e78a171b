package org.xtreemfs.osd.stages;

import io.netty.buffer.ByteBuf;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.osd.locks.HeldLock;

/**
 * A parsed file request on its way through the pipeline, before its capability is checked. Each record
 * keeps the call it answers; the storage stage answers it exactly once.
 */
public sealed interface OsdRequest {
    RpcCall call();

    FileCredentials credentials();

    String fileId();

    /** Writes, truncates and unlinks need a capability with write access. */
    default boolean needsWriteAccess() {
        return false;
    }

    /**
     * Updates that travel a replicated file's chain: they enter at the head and each OSD forwards them to its
     * successor (writes, truncates, unlinks, fsyncs).
     */
    default boolean travelsTheChain() {
        return false;
    }

    /** Sent by the OSD before this one in the file's chain rather than by a client. */
    default boolean forwarded() {
        return false;
    }

    /**
     * Part of filling a new replica (its copies and their reads at the source): charged to the volume's best-effort
     * fill flow, so reserved volumes keep their reservation while a replica is filled.
     */
    default boolean isReplicaFill() {
        return false;
    }

    /** What the request costs the device in bytes, for the queueing policy (0 for metadata-only work). */
    default long costBytes() {
        return 0;
    }

    /** A read or write of object data: which object of the file, and where in it. */
    sealed interface ObjectAccess extends OsdRequest {
        long objectNumber();

        int offset();
    }

    /** {@code replicaFill}: a filling replica's copy (OSD_READ replica_fill), charged to the volume's fill flow. */
    record ReadObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int offset,
            int length, boolean replicaFill) implements ObjectAccess {
        public ReadObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int offset,
                int length) {
            this(call, credentials, fileId, objectNumber, offset, length, false);
        }

        @Override
        public long costBytes() {
            return length;
        }

        @Override
        public boolean isReplicaFill() {
            return replicaFill;
        }
    }

    /**
     * OSD_COPY_OBJECT: a filling replica copies one whole object from its fill source (ReplicaChain#fillSource).
     * Ordered like a write of that object, so no forwarded update of it lands between the copy's read at the source
     * and its write here.
     */
    record CopyObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int objectSizeBytes)
            implements ObjectAccess {
        @Override
        public int offset() {
            return 0;
        }

        @Override
        public long costBytes() {
            return objectSizeBytes;
        }

        @Override
        public boolean needsWriteAccess() {
            return true;
        }

        @Override
        public boolean isReplicaFill() {
            return true;
        }
    }

    /**
     * OSD_FILL_REPLICA: copy every object of this OSD's stripe position from the fill source, at most
     * {@code rateBytesPerSecond} (0: the OSD's setting). Never queued for storage itself: it sends CopyObject
     * requests, which are.
     */
    record FillReplica(RpcCall call, FileCredentials credentials, String fileId, long rateBytesPerSecond)
            implements OsdRequest {
        @Override
        public boolean needsWriteAccess() {
            return true;
        }
    }

    /** {@code data} is the call's data segment, valid until the call is answered. */
    record WriteObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int offset,
            boolean sync, ByteBuf data, boolean forwarded) implements ObjectAccess {
        public WriteObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int offset,
                boolean sync, ByteBuf data) {
            this(call, credentials, fileId, objectNumber, offset, sync, data, false);
        }

        @Override
        public boolean needsWriteAccess() {
            return true;
        }

        @Override
        public boolean travelsTheChain() {
            return true;
        }

        @Override
        public long costBytes() {
            return data.readableBytes();
        }
    }

    record TruncateFile(RpcCall call, FileCredentials credentials, String fileId, long newSizeBytes,
            boolean forwarded) implements OsdRequest {
        public TruncateFile(RpcCall call, FileCredentials credentials, String fileId, long newSizeBytes) {
            this(call, credentials, fileId, newSizeBytes, false);
        }

        @Override
        public boolean needsWriteAccess() {
            return true;
        }

        @Override
        public boolean travelsTheChain() {
            return true;
        }
    }

    record UnlinkFile(RpcCall call, FileCredentials credentials, String fileId, boolean forwarded)
            implements OsdRequest {
        public UnlinkFile(RpcCall call, FileCredentials credentials, String fileId) {
            this(call, credentials, fileId, false);
        }

        @Override
        public boolean needsWriteAccess() {
            return true;
        }

        @Override
        public boolean travelsTheChain() {
            return true;
        }
    }

    record FsyncFile(RpcCall call, FileCredentials credentials, String fileId, boolean forwarded)
            implements OsdRequest {
        public FsyncFile(RpcCall call, FileCredentials credentials, String fileId) {
            this(call, credentials, fileId, false);
        }

        @Override
        public boolean travelsTheChain() {
            return true;
        }
    }

    record GetFileSize(RpcCall call, FileCredentials credentials, String fileId) implements OsdRequest {}

    /** What a lock request asks of the head OSD's lock table. */
    enum LockAction {
        ACQUIRE, CHECK, RELEASE
    }

    /**
     * OSD_LOCK_ACQUIRE, OSD_LOCK_CHECK or OSD_LOCK_RELEASE: answered from the in-memory lock table right after the
     * capability check, never queued for storage (see {@link LockService}). Any access mode suffices.
     */
    record LockOperation(RpcCall call, FileCredentials credentials, String fileId, LockAction action, HeldLock lock)
            implements OsdRequest {}
}
