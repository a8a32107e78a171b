package org.xtreemfs.osd;

import org.xtreemfs.foundation.launcher.ServerLauncher;

/**
 * Entry of {@code bin/xtreemfs-osd}: {@code --config FILE}, {@code -D key=value}, {@code --help},
 * {@code --print-settings}; prints {@code READY osd host:port} once serving and stops on SIGTERM. Bad keys
 * or values exit non-zero with a line naming key and value.
 */
public final class OsdMain {
    public static final String VERSION = "0.1.0";

    private OsdMain() {}

    public static void main(String[] args) {
        new ServerLauncher("osd", VERSION, OsdConfig.SCHEMA).launchAndExit(args, settings -> {
            OsdServer server = new OsdServer(new OsdConfig(settings));
            server.start();
            return server;
        });
    }
}
