package org.xtreemfs.foundation.kv;

/**
 * A KV store operation failed (I/O error, corruption, store closed). Unchecked: callers cannot
 * recover locally, so it travels to the RPC layer and becomes an INTERNAL error.
 */
public final class KvException extends RuntimeException {

    public KvException(String message) {
        super(message);
    }

    public KvException(String message, Throwable cause) {
        super(message, cause);
    }
}
