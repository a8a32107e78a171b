package org.xtreemfs.dir.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.interfaces.rpc.Empty;

/** DIR_PING: answered on the network thread without touching the registry, so it measures reachability only. */
public final class PingOp implements RpcHandler {
    @Override
    public void handle(RpcCall call) throws RpcException {
        call.request(Empty.parser());
        call.respond(Empty.getDefaultInstance());
    }
}
