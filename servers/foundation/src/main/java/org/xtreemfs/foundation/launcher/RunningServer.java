package org.xtreemfs.foundation.launcher;

import java.net.InetSocketAddress;

/** A started server as the launcher sees it: where it listens (RPC and status page) and how to stop it. */
public interface RunningServer extends AutoCloseable {

    /** The bound RPC address announced in the READY line (the real port, also if 0 was asked). */
    InetSocketAddress address();

    /**
     * The bound address of its status page, announced in the READY line beside the RPC address (the real port,
     * also if 0 was asked: how a launcher learns it without choosing a port that another process could take first).
     */
    InetSocketAddress statusAddress();

    /** Stops the server and releases its resources; called once, from the launcher. */
    @Override
    void close() throws Exception;
}
