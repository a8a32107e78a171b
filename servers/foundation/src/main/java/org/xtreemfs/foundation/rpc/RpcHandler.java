package org.xtreemfs.foundation.rpc;

/**
 * Serves one procedure. Runs on a network thread: it must not block; work that blocks (disk, KV store) is
 * handed to a stage, which later answers through {@link RpcCall#respond} or {@link RpcCall#fail}.
 * An exception thrown here is sent back as the call's error (an {@link RpcException} as is, anything else
 * as INTERNAL).
 */
@FunctionalInterface
public interface RpcHandler {
    void handle(RpcCall call) throws Exception;
}
