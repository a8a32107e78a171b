package org.xtreemfs.client.tools.cluster;

/** A cluster operation failed: a server exited or was not ready in time, a name is unknown, the state is bad. */
public final class ClusterException extends RuntimeException {
    public ClusterException(String message) {
        super(message);
    }

    public ClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
