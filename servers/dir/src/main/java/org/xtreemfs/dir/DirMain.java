package org.xtreemfs.dir;

import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.launcher.RunningServer;
import org.xtreemfs.foundation.launcher.ServerLauncher;

/**
 * {@code bin/xtreemfs-dir}: {@code --config FILE}, {@code -D key=value}, {@code --help},
 * {@code --print-settings}; prints {@code READY dir <host:port> status <host:port>} once it serves and runs until it is
 * signalled. Bad settings exit with code 2 and a line naming the key and the value.
 */
public final class DirMain {
    public static final String VERSION = "0.1.0";

    private static final Logger LOG = LoggerFactory.getLogger(DirMain.class);

    private DirMain() {}

    public static void main(String[] args) {
        launcher().launchAndExit(args, DirMain::start);
    }

    static ServerLauncher launcher() {
        return new ServerLauncher("dir", VERSION, DirConfig.SCHEMA);
    }

    /** Starts a DIR from launcher-validated settings; the launcher closes it on shutdown. */
    static RunningServer start(Settings settings) throws Exception {
        DirServer server = new DirServer(DirConfig.of(settings));
        DirServer.Addresses addresses = server.start();
        LOG.info("DIR status page: http://{}:{}/", addresses.status().getHostString(), addresses.status().getPort());
        return new RunningServer() {
            @Override
            public InetSocketAddress address() {
                return addresses.rpc();
            }

            @Override
            public InetSocketAddress statusAddress() {
                return addresses.status();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }
}
