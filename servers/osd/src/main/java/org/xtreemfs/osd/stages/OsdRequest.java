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

    /** What the request costs the device in bytes, for the queueing policy (0 for metadata-only work). */
    default long costBytes() {
        return 0;
    }

    /** A read or write of object data: which object of the file, and where in it. */
    sealed interface ObjectAccess extends OsdRequest {
        long objectNumber();

        int offset();
    }

    record ReadObject(RpcCall call, FileCredentials credentials, String fileId, long objectNumber, int offset,
            int length) implements ObjectAccess {
        @Override
        public long costBytes() {
            return length;
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
