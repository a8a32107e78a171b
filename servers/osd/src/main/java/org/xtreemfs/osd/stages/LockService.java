package org.xtreemfs.osd.stages;

import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.osd.Lock;
import org.xtreemfs.interfaces.osd.LockKind;
import org.xtreemfs.interfaces.osd.LockRenewResponse;
import org.xtreemfs.interfaces.osd.LockResponse;
import org.xtreemfs.osd.locks.HeldLock;
import org.xtreemfs.osd.locks.LockManager;
import org.xtreemfs.osd.locks.LockManager.Outcome;
import org.xtreemfs.osd.stages.OsdRequest.LockOperation;
import org.xtreemfs.osd.storage.ReplicaRole;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;

/**
 * Answers authorized lock requests from the {@link LockManager} on the thread that authorized them (the
 * network thread by default, see osd.preprocessing.threads): a lock call is a few in-memory list operations, so it skips the QoS and storage queues (it costs the device
 * nothing and must not wait behind a file's writes). Only the head OSD (stripe position 0) keeps a file's locks.
 */
public final class LockService {
    private final LockManager locks;

    public LockService(LockManager locks) {
        this.locks = locks;
    }

    /** The preprocessing stage's next step: lock requests here, everything else to {@code storagePath}. */
    public PreprocessingStage.Next routing(PreprocessingStage.Next storagePath) {
        return authorized -> {
            if (authorized.request() instanceof LockOperation) {
                execute(authorized);
            } else {
                storagePath.accept(authorized);
            }
        };
    }

    /** Answers the call of an authorized {@link LockOperation} exactly once. */
    void execute(AuthorizedRequest authorized) throws RpcException {
        LockOperation operation = (LockOperation) authorized.request();
        ReplicaRole role = authorized.chain().role();
        if (authorized.layout().position() != 0 || (role != ReplicaRole.SOLE && role != ReplicaRole.HEAD)) {
            throw RpcException.invalidArguments("lock requests for file " + operation.fileId()
                    + " go to its head OSD (stripe position 0 of the head replica), not to position "
                    + authorized.layout().position() + " of a " + role + " replica");
        }
        HeldLock lock = operation.lock();
        LockResponse.Builder response = LockResponse.newBuilder().setLeaseMs(leaseMs());
        switch (operation.action()) {
            case ACQUIRE -> failUnlessDone(locks.acquire(operation.fileId(), lock), operation.fileId());
            case CHECK -> locks.check(operation.fileId(), lock)
                    .ifPresent(holder -> response.setConflicting(toWire(holder)));
            case RELEASE -> failUnlessDone(locks.release(operation.fileId(), lock.owner(), lock.kind(),
                    lock.startBytes(), lock.endBytes()), operation.fileId());
        }
        operation.call().respond(response.build());
    }

    /** OSD_LOCK_RENEW: extends the client's lease; needs no capability, it only keeps granted locks alive. */
    public void renew(RpcCall call, String clientUuid) throws RpcException {
        if (clientUuid.isEmpty()) {
            throw RpcException.invalidArguments("lock lease renewal without a client UUID");
        }
        int held = locks.renew(clientUuid);
        call.respond(LockRenewResponse.newBuilder().setLeaseMs(leaseMs()).setLocksHeld(held).build());
    }

    private int leaseMs() {
        return (int) Math.min(Integer.MAX_VALUE, locks.leaseMs());
    }

    private static void failUnlessDone(Outcome outcome, String fileId) throws RpcException {
        if (outcome instanceof Outcome.Conflict conflict) {
            HeldLock holder = conflict.holder();
            throw RpcException.errno(Errno.EAGAIN, "file " + fileId + " is locked by pid " + holder.pid()
                    + " of client " + holder.owner().clientUuid() + " (" + (holder.exclusive() ? "exclusive" : "shared")
                    + " " + holder.kind() + " lock at " + holder.startBytes() + ")");
        }
        if (outcome instanceof Outcome.TooManyLocks tooMany) {
            throw RpcException.errno(Errno.ENOLCK, tooMany.message());
        }
    }

    /** The wire form of a granted lock (CHECK's answer). */
    static Lock toWire(HeldLock lock) {
        return Lock.newBuilder().setClientUuid(lock.owner().clientUuid()).setOwner(lock.owner().owner())
                .setPid(lock.pid()).setOffsetBytes(lock.startBytes()).setLengthBytes(lock.lengthBytes())
                .setExclusive(lock.exclusive())
                .setKind(lock.kind() == org.xtreemfs.osd.locks.LockKind.FLOCK ? LockKind.LOCK_KIND_FLOCK
                        : LockKind.LOCK_KIND_POSIX)
                .build();
    }
}
