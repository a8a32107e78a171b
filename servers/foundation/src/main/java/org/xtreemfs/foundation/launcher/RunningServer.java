package org.xtreemfs.foundation.launcher;

import java.net.InetSocketAddress;

/** A started server as the launcher sees it: where it listens and how to stop it. */
public interface RunningServer extends AutoCloseable {

    /** The bound RPC address announced in the READY line (the real port, also if 0 was asked). */
    InetSocketAddress address();

    /** Stops the server and releases its resources; called once, from the launcher. */
    @Override
    void close() throws Exception;
}
