package org.xtreemfs.mrc;

import org.xtreemfs.foundation.launcher.ServerLauncher;

/**
 * Entry point of {@code bin/xtreemfs-mrc}: {@code --config FILE}, {@code -D key=value}, {@code --help},
 * {@code --print-settings}; prints {@code READY mrc host:port status host:port} once serving. Bad keys or values exit
 * with code 2 and a line naming them.
 */
public final class MrcMain {
    static final String VERSION = "0.1.0";

    private MrcMain() {}

    public static void main(String[] args) {
        new ServerLauncher("mrc", VERSION, MrcConfig.SCHEMA).launchAndExit(args, MrcServer::launch);
    }
}
