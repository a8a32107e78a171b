package org.xtreemfs.foundation.rpc;

/** A peer sent bytes that are not a valid record; the connection is closed, the server keeps serving. */
public final class MalformedFrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedFrameException(String message) {
        super(message);
    }

    public MalformedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
