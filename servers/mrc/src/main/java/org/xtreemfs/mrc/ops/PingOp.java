package org.xtreemfs.mrc.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.interfaces.rpc.Empty;

/** MRC_PING: answered on the network thread, so it measures liveness, not the metadata queue. */
public final class PingOp implements RpcHandler {
    @Override
    public void handle(RpcCall call) {
        call.respond(Empty.getDefaultInstance());
    }
}
