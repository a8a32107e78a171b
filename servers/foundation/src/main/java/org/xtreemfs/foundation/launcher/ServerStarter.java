package org.xtreemfs.foundation.launcher;

import org.xtreemfs.foundation.config.Settings;

/** Builds and starts a server from validated settings; typically {@code XxxServer::start}. */
@FunctionalInterface
public interface ServerStarter {

    /** Returns once the server accepts requests; throws if it cannot start. */
    RunningServer start(Settings settings) throws Exception;
}
