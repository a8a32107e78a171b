package org.xtreemfs.osd;

import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.launcher.RunningServer;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.osd.calibration.CalibrateCommand;

/**
 * Entry of {@code bin/xtreemfs-osd}: {@code --config FILE}, {@code -D key=value}, {@code --help},
 * {@code --print-settings}; prints {@code READY osd host:port status host:port} once serving and stops on SIGTERM. Bad keys
 * or values exit non-zero with a line naming key and value. With {@code --calibrate} it measures the storage
 * folder instead and writes a profile file ({@link CalibrateCommand}; {@code --calibrate --help}).
 */
public final class OsdMain {
    public static final String VERSION = "0.1.0";
    static final ServerLauncher LAUNCHER = new ServerLauncher("osd", VERSION, OsdConfig.SCHEMA);

    private OsdMain() {}

    public static void main(String[] args) {
        if (CalibrateCommand.requested(args)) {
            System.exit(CalibrateCommand.run(args, SystemClock.INSTANCE, System.out, System.err));
        }
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            LAUNCHER.launch(args, OsdMain::start, System.out, System.err,
                    new org.xtreemfs.foundation.launcher.ShutdownSignal());
            System.out.println("\nCalibration: xtreemfs-osd --calibrate [--short] [--output FILE] [--force] [--config"
                    + " FILE] [-D key=value]... measures the storage folder and writes a profile file"
                    + " (--calibrate --help).");
            System.exit(ServerLauncher.EXIT_OK);
        }
        LAUNCHER.launchAndExit(args, OsdMain::start);
    }

    static RunningServer start(Settings settings) throws Exception {
        OsdServer server = new OsdServer(new OsdConfig(settings));
        server.start();
        return server;
    }
}
