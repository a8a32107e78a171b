package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.interfaces.osd.LockRenewRequest;
import org.xtreemfs.osd.stages.LockService;

/**
 * OSD_LOCK_RENEW: extends a client's lock lease, answered on the network thread (one short in-memory update, no
 * capability: it only keeps locks alive that were granted with one).
 */
public final class LockRenewOp implements RpcHandler {
    private final LockService locks;

    public LockRenewOp(LockService locks) {
        this.locks = locks;
    }

    @Override
    public void handle(RpcCall call) throws RpcException {
        locks.renew(call, call.request(LockRenewRequest.parser()).getClientUuid());
    }
}
