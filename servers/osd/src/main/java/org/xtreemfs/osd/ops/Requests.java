package org.xtreemfs.osd.ops;

import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.osd.storage.FileIds;

/** Checks shared by the operations, done on the network thread before anything is queued. */
final class Requests {
    private Requests() {}

    static String fileId(String fileId) throws RpcException {
        String problem = FileIds.problem(fileId);
        if (problem != null) {
            throw RpcException.invalidArguments(problem);
        }
        return fileId;
    }

    static int unsignedInt(int value, String field) throws RpcException {
        if (value < 0) {
            throw RpcException.invalidArguments(field + " " + Integer.toUnsignedString(value) + " is too large");
        }
        return value;
    }

    static long unsignedLong(long value, String field) throws RpcException {
        if (value < 0) {
            throw RpcException.invalidArguments(field + " " + Long.toUnsignedString(value) + " is too large");
        }
        return value;
    }
}
