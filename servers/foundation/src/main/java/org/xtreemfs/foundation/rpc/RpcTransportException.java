package org.xtreemfs.foundation.rpc;

import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * The call did not get an answer: the connection failed or closed, or the per-call timeout expired. The
 * request may or may not have been executed; retrying is safe only for idempotent operations.
 */
public final class RpcTransportException extends RpcException {
    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    public RpcTransportException(String message, boolean timedOut) {
        super(ErrorType.INTERNAL, timedOut ? Errno.ETIMEDOUT : Errno.EIO, message, "");
        this.timedOut = timedOut;
    }

    public boolean timedOut() {
        return timedOut;
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
