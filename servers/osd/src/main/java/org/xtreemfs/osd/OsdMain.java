package org.xtreemfs.osd;

import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.launcher.RunningServer;
import org.xtreemfs.foundation.launcher.ServerLauncher;

/**
 * Entry of {@code bin/xtreemfs-osd}: {@code --config FILE}, {@code -D key=value}, {@code --help},
 * {@code --print-settings}; prints {@code READY osd host:port} once serving and stops on SIGTERM. Bad keys
 * or values exit non-zero with a line naming key and value.
 */
public final class OsdMain {
    public static final String VERSION = "0.1.0";
    static final ServerLauncher LAUNCHER = new ServerLauncher("osd", VERSION, OsdConfig.SCHEMA);

    private OsdMain() {}

    public static void main(String[] args) {
        LAUNCHER.launchAndExit(args, OsdMain::start);
    }

    static RunningServer start(Settings settings) throws Exception {
        OsdServer server = new OsdServer(new OsdConfig(settings));
        server.start();
        return server;
    }
}
