package org.xtreemfs.foundation.rpc;

import org.xtreemfs.interfaces.rpc.ErrorResponse;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * An error the remote side reported (or a handler raises to report), typed so the caller can act on it:
 * ERRNO carries a POSIX errno, REDIRECT names the service to ask instead, OVERLOADED asks for a retry later.
 */
public class RpcException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ErrorType errorType;
    private final int posixErrno;
    private final String redirectToServiceUuid;

    public RpcException(ErrorType errorType, int posixErrno, String message, String redirectToServiceUuid) {
        this(errorType, posixErrno, message, redirectToServiceUuid, true);
    }

    /**
     * {@code withStackTrace} false: an answer a server gives in its normal course (ENOENT of a lookup, EEXIST,
     * OVERLOADED, REDIRECT...), which its message explains; only INTERNAL errors (bugs, failed I/O) and errors received
     * from a remote side keep where they arose. Filling the stack trace was 3 % of the MRC's CPU during creates through
     * FUSE (each create's lookup of the new name answers ENOENT).
     */
    private RpcException(ErrorType errorType, int posixErrno, String message, String redirectToServiceUuid,
            boolean withStackTrace) {
        super(message, null, true, withStackTrace);
        this.errorType = errorType;
        this.posixErrno = posixErrno;
        this.redirectToServiceUuid = redirectToServiceUuid == null ? "" : redirectToServiceUuid;
    }

    /** An answer of the server's normal course: no stack trace (see the constructor). */
    private static RpcException answer(ErrorType errorType, int posixErrno, String message, String serviceUuid) {
        return new RpcException(errorType, posixErrno, message, serviceUuid, false);
    }

    public static RpcException errno(int posixErrno, String message) {
        return answer(ErrorType.ERRNO, posixErrno, message, "");
    }

    public static RpcException invalidArguments(String message) {
        return answer(ErrorType.INVALID_ARGS, Errno.EINVAL, message, "");
    }

    public static RpcException authFailed(String message) {
        return answer(ErrorType.AUTH_FAILED, Errno.EACCES, message, "");
    }

    public static RpcException overloaded(String message) {
        return answer(ErrorType.OVERLOADED, Errno.EAGAIN, message, "");
    }

    public static RpcException internal(String message) {
        return new RpcException(ErrorType.INTERNAL, Errno.EIO, message, "");
    }

    public static RpcException redirect(String serviceUuid, String message) {
        return answer(ErrorType.REDIRECT, 0, message, serviceUuid);
    }

    /**
     * The OSD {@code memberUuid} of a replicated file's chain did not answer its predecessor: the client reports it
     * to the MRC (MRC_REPLICA_FAILED), which re-forms the chain once the DIR shows the member dead.
     */
    public static RpcException chainMemberUnreachable(String memberUuid, String message) {
        return answer(ErrorType.CHAIN_MEMBER_UNREACHABLE, Errno.EAGAIN, message, memberUuid);
    }

    /** The request's XLoc is older than the file's current one here: the client fetches the current one and retries. */
    public static RpcException xlocOutdated(String message) {
        return answer(ErrorType.XLOC_OUTDATED, Errno.EAGAIN, message, "");
    }

    public static RpcException fromResponse(ErrorResponse response) {
        return new RpcException(response.getErrorType(), response.getPosixErrno(), response.getErrorMessage(),
                response.getRedirectToServiceUuid());
    }

    public ErrorResponse toResponse() {
        return ErrorResponse.newBuilder()
                .setErrorType(errorType)
                .setPosixErrno(posixErrno)
                .setErrorMessage(getMessage() == null ? "" : getMessage())
                .setRedirectToServiceUuid(redirectToServiceUuid)
                .build();
    }

    public ErrorType errorType() {
        return errorType;
    }

    /** The POSIX errno; meaningful for ERRNO, a best-effort mapping for the other types. */
    public int posixErrno() {
        return posixErrno;
    }

    public String redirectToServiceUuid() {
        return redirectToServiceUuid;
    }

    /** True when the same call may succeed if repeated later (overload, lost connection, timeout). */
    public boolean isTransient() {
        return errorType == ErrorType.OVERLOADED;
    }

    @Override
    public String toString() {
        String detail = errorType == ErrorType.ERRNO ? Errno.name(posixErrno) : errorType.name();
        return "RpcException[" + detail + "]: " + getMessage();
    }
}
