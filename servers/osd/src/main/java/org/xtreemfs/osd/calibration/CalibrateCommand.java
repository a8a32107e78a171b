package org.xtreemfs.osd.calibration;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.config.SettingsSchema;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.osd.OsdConfig;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StorageDevice;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Units;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code xtreemfs-osd --calibrate}: measures the OSD's own storage folder through its storage layer with the
 * calibration pattern and writes a profile file (see {@link ProfileFile}). Same {@code --config} and
 * {@code -D} settings as the server; the OSD need not be stopped (the run uses a folder of its own inside
 * {@code osd.object.path}, removed afterwards).
 *
 * <p>A real disk is measured with O_DIRECT, so the page cache does not answer in its place. A folder on tmpfs,
 * or on a file system that refuses O_DIRECT, cannot be measured meaningfully (it would measure memory): the
 * run refuses it unless {@code --force}. An emulated device ({@code osd.device.emulation}) is measured through
 * its emulation wherever its folder lies, without O_DIRECT (the emulation is the device).
 */
@Command(name = "xtreemfs-osd --calibrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures this OSD's storage folder (through its storage layer, so an emulated device "
                + "measures its emulation) and writes the profile the OSD registers with osd.profile.path.",
                "Sequential 128 KiB streams at 1, 2, 4, 8, 16 streams (minimum of write and read), random 4 KiB IOPS at "
                        + "queue depth 32, the random 128 KiB floor and a random 32 KiB check; about 3 minutes, "
                        + "about 40 s with --short."})
public final class CalibrateCommand {
    public static final String FLAG = "--calibrate";
    /** Exit code when the folder cannot be measured meaningfully or the run fails. */
    public static final int EXIT_FAILURE = ServerLauncher.EXIT_FAILURE;
    /** Name of the run's own folder inside osd.object.path. */
    static final String WORK_FOLDER = "calibration-run";
    static final String DEFAULT_OUTPUT_NAME = "profile.properties";

    @Option(names = FLAG, description = "Calibrate instead of serving (this command).")
    boolean calibrate;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with OSD settings.")
    Path configFile;

    @Option(names = "-D", paramLabel = "key=value", description = "Overrides one setting; repeatable.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--short", description = "The short run: 16 MiB files, 0.25 s warm-up and 1.5 s per phase.")
    boolean quick;

    @Option(names = "--output", paramLabel = "FILE", description = "Profile file to write (default: osd.profile.path "
            + "if set, else <osd.object.path>/" + DEFAULT_OUTPUT_NAME + ").")
    Path output;

    @Option(names = "--force", description = "Measure a folder that cannot be measured meaningfully (tmpfs, no "
            + "O_DIRECT) anyway, with a warning; the profile then describes the page cache, not the disk.")
    boolean force;

    private CalibrateCommand() {}

    /** True when the arguments ask for a calibration rather than the server. */
    public static boolean requested(String[] args) {
        for (String arg : args) {
            if (arg.equals(FLAG)) {
                return true;
            }
        }
        return false;
    }

    /** Parses, calibrates and returns the exit code: 0 done, 1 cannot measure or failed, 2 bad usage or setting. */
    public static int run(String[] args, Clock clock, PrintStream out, PrintStream err) {
        return run(args, CalibrationTiming.real(clock), out, err);
    }

    /** {@link #run(String[], Clock, PrintStream, PrintStream)} in the given time (a test's virtual clock). */
    public static int run(String[] args, CalibrationTiming timing, PrintStream out, PrintStream err) {
        CalibrateCommand command = new CalibrateCommand();
        CommandLine commandLine = new CommandLine(command);
        try {
            commandLine.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println("xtreemfs-osd --calibrate: " + e.getMessage() + " (try --calibrate --help)");
            return ServerLauncher.EXIT_USAGE;
        }
        if (commandLine.isUsageHelpRequested()) {
            commandLine.usage(new PrintWriter(out, true, StandardCharsets.UTF_8));
            return ServerLauncher.EXIT_OK;
        }
        if (commandLine.isVersionHelpRequested()) {
            out.println("xtreemfs-osd --calibrate");
            return ServerLauncher.EXIT_OK;
        }
        OsdConfig config;
        try {
            config = new OsdConfig(OsdConfig.SCHEMA.validate(SettingsSchema.load(command.configFile,
                    command.overrides)));
        } catch (SettingsException e) {
            return ServerLauncher.reportSettingsError("xtreemfs-osd --calibrate", e, err);
        }
        try {
            return command.calibrate(config, timing, out, err);
        } catch (IOException | RuntimeException e) {
            err.println("xtreemfs-osd --calibrate: failed: " + e.getMessage());
            return EXIT_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("xtreemfs-osd --calibrate: interrupted");
            return EXIT_FAILURE;
        }
    }

    private int calibrate(OsdConfig config, CalibrationTiming timing, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        Clock clock = timing.clock();
        CalibrationPattern pattern = quick ? CalibrationPattern.quick() : CalibrationPattern.standard();
        DeviceEmulation emulation = config.deviceEmulation();
        Path objectPath = config.objectPath();
        Files.createDirectories(objectPath);
        Path work = objectPath.resolve(WORK_FOLDER);
        Path target = output != null ? output
                : config.profilePath().orElse(objectPath.resolve(DEFAULT_OUTPUT_NAME));
        FileStore fileStore = Files.getFileStore(objectPath);
        long neededBytes = CalibrationPattern.FILE_COUNT * pattern.fileBytes();
        if (fileStore.getUsableSpace() < neededBytes + neededBytes / 4) {
            err.println("xtreemfs-osd --calibrate: " + objectPath + " has " + Units.describeBytes(fileStore
                    .getUsableSpace()) + " free; the run writes " + Units.describeBytes(neededBytes)
                    + " (try --short)");
            return EXIT_FAILURE;
        }
        boolean directIo = false;
        if (!emulation.emulated()) {
            String problem = null;
            if (fileStore.type().toLowerCase(Locale.ROOT).contains("tmpfs")
                    || fileStore.type().toLowerCase(Locale.ROOT).equals("ramfs")) {
                problem = objectPath + " is on " + fileStore.type() + " (memory, not a disk)";
            } else if (!directIoWorks(objectPath)) {
                problem = "the file system of " + objectPath + " (" + fileStore.type() + ") refuses O_DIRECT, so the "
                        + "page cache would answer instead of the disk";
            } else {
                directIo = true;
            }
            if (problem != null && !force) {
                err.println("xtreemfs-osd --calibrate: cannot measure meaningfully: " + problem
                        + "; use --force to measure anyway, or osd.device.emulation to emulate a device");
                return EXIT_FAILURE;
            }
            if (problem != null) {
                err.println("xtreemfs-osd --calibrate: WARNING: " + problem + "; measuring anyway (--force)");
            }
        }
        out.printf("Calibrating %s (%s, %s%s) with %s%n", objectPath, fileStore.type(),
                emulation.emulated() ? "emulated " + emulation.configName() : "real disk",
                directIo ? ", O_DIRECT" : "", ProfileFile.describe(pattern));
        out.printf("%d phases, %.1f s warm-up and %.1f s measured each; about %d s in all%n",
                pattern.phases().size(), pattern.warmupNanos() / 1e9, pattern.windowNanos() / 1e9,
                Math.round(pattern.phases().size() * (pattern.warmupNanos() + pattern.windowNanos()) / 1e9 * 1.2));
        deleteRecursively(work);
        Instant measuredAt = Instant.ofEpochMilli(clock.wallClockMillis());
        Calibration.Outcome outcome;
        try {
            outcome = measure(work, emulation, directIo, pattern, timing, out);
        } finally {
            deleteRecursively(work);
        }
        long capacityBytes = fileStore.getTotalSpace();
        if (emulation.emulated()) {
            capacityBytes = Math.min(capacityBytes, emulation.model().capacityBytes());
        }
        ProfileFile.write(target, new ProfileFile.Calibrated(outcome.result(), config.deviceClass(), capacityBytes,
                measuredAt, objectPath, emulation.configName(), directIo, pattern, outcome.durationNanos()));
        OsdProfile profile = outcome.result().profile(OsdUsageType.BEST_EFFORT, config.deviceClass(), capacityBytes);
        out.printf("Sequential MiB/s at 1..16 streams: %s%n", mebibytes(profile.sequentialThroughput()
                .measuredBytesPerSecond()));
        out.printf("Floor %s, random 4 KiB IOPS %d, random 32 KiB check %d IOPS; took %.0f s%n",
                Units.describeBytes(profile.sequentialThroughput().floorBytesPerSecond()) + "/s", profile.randomIops(),
                outcome.result().middleIops(), outcome.durationNanos() / 1e9);
        out.println("Wrote " + target + (config.profilePath().map(target::equals).orElse(false) ? ""
                : "; register it with -D osd.profile.path=" + target));
        return ServerLauncher.EXIT_OK;
    }

    /**
     * Runs the pattern on {@code work}: the fill without the emulation (preparation, not measurement), then the
     * measured phases through the OSD's storage layer with the emulated device or the real disk.
     */
    public static Calibration.Outcome measure(Path work, DeviceEmulation emulation, boolean directIo,
            CalibrationPattern pattern, CalibrationTiming timing, PrintStream out)
            throws IOException, InterruptedException {
        Calibration.Stores stores = (measured, arrivalOrder) -> ObjectStore.open(work, arrivalOrder.apply(
                measured ? emulation.device(timing.clock(), timing.waiter()) : StorageDevice.NONE), directIo);
        return new Calibration(stores, pattern, timing.clock(), timing.threads(), out).run();
    }

    private static String mebibytes(long[] bytesPerSecond) {
        StringBuilder text = new StringBuilder();
        for (long point : bytesPerSecond) {
            text.append(text.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f", point / 1048576.0));
        }
        return text.toString();
    }

    /** Whether the folder's file system accepts O_DIRECT (tmpfs, for one, refuses it). */
    static boolean directIoWorks(Path folder) {
        Path probe = folder.resolve(".calibration-direct-io-probe");
        try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.DELETE_ON_CLOSE, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            return channel.isOpen();
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException e) {
                // the probe is empty; a leftover is harmless
            }
        }
    }

    private static void deleteRecursively(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (var paths = Files.walk(folder)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
