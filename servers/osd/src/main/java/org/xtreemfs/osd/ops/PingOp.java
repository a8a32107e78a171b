package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.interfaces.rpc.Empty;

/** OSD_PING: answers at once on the network thread; proves the OSD accepts calls. */
public final class PingOp implements RpcHandler {
    @Override
    public void handle(RpcCall call) {
        call.respond(Empty.getDefaultInstance());
    }
}
