package org.xtreemfs.client;

import java.io.IOException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * A failed file system operation: the POSIX errno a FUSE adapter would return, the RPC error type the
 * caller may act on, and a message naming the operation and the path or value involved.
 */
public class XtreemFSException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final ErrorType errorType;

    public XtreemFSException(int errno, ErrorType errorType, String message, Throwable cause) {
        super(message, cause);
        this.errno = errno;
        this.errorType = errorType;
    }

    public XtreemFSException(int errno, String message) {
        this(errno, ErrorType.ERRNO, message, null);
    }

    /** Wraps an RPC failure as "{operation}: {ERRNO}: {server message}". */
    public static XtreemFSException from(String operation, RpcException cause) {
        int errno = cause.posixErrno() != 0 ? cause.posixErrno() : Errno.EIO;
        String kind = cause instanceof RpcTransportException ? "transport error"
                : cause.errorType() == ErrorType.ERRNO ? Errno.name(errno) : cause.errorType().name();
        return new XtreemFSException(errno, cause.errorType(), operation + ": " + kind + ": " + cause.getMessage(), cause);
    }

    /** The POSIX errno (Linux numbering); EIO for failures without a more specific one. */
    public int errno() {
        return errno;
    }

    public ErrorType errorType() {
        return errorType;
    }

    public String errnoName() {
        return Errno.name(errno);
    }
}
