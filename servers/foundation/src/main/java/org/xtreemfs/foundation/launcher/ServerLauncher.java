package org.xtreemfs.foundation.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsException;
import org.xtreemfs.foundation.config.SettingsSchema;
import org.xtreemfs.foundation.kv.KvException;
import picocli.CommandLine;

/**
 * Runs one server process: parses the common options, validates settings, starts the server,
 * prints its {@link ReadyAnnouncement} ({@code READY <service> <host:port> status <host:port>}, the bound
 * RPC and status addresses) on stdout and waits for a shutdown signal. A main is
 * one line: {@code new ServerLauncher("osd", VERSION, OsdConfig.SCHEMA).launchAndExit(args,
 * OsdServer::start)}.
 */
public final class ServerLauncher {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    /** How long the shutdown hook waits for the server to close before the JVM exits anyway. */
    public static final long SHUTDOWN_HOOK_WAIT_MS = 30_000;

    private static final Logger LOG = LoggerFactory.getLogger(ServerLauncher.class);

    private final String serviceName;
    private final String commandName;
    private final String version;
    private final SettingsSchema schema;

    /**
     * @param serviceName short name used in the READY line, e.g. {@code osd}
     * @param version shown by {@code --version}
     */
    public ServerLauncher(String serviceName, String version, SettingsSchema schema) {
        this.serviceName = serviceName;
        this.commandName = "xtreemfs-" + serviceName;
        this.version = version;
        this.schema = schema;
    }

    /** What the command line asks for: exit now with a code, or run with these settings. */
    public sealed interface Decision permits Exit, Run {
    }

    public record Exit(int exitCode) implements Decision {
    }

    public record Run(Settings settings, Optional<Path> pidFile) implements Decision {
    }

    /**
     * Parses arguments and settings without side effects beyond printing help, version, settings
     * documentation or a one-line error.
     */
    public Decision parse(String[] args, PrintStream out, PrintStream err) {
        CommonOptions options = new CommonOptions();
        CommandLine commandLine = new CommandLine(options);
        commandLine.setCommandName(commandName);
        commandLine.getCommandSpec().version(commandName + " " + version);
        commandLine.getCommandSpec().usageMessage()
                .description("Runs the XtreemFS " + serviceName.toUpperCase() + " server.")
                .footer("%nSettings (give them in --config FILE or as -D key=value):%n"
                        + schema.renderSummary().replace("%", "%%"));
        try {
            commandLine.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println(commandName + ": " + e.getMessage() + " (try --help)");
            return new Exit(EXIT_USAGE);
        }
        if (commandLine.isUsageHelpRequested()) {
            commandLine.usage(new PrintWriter(out, true, StandardCharsets.UTF_8));
            return new Exit(EXIT_OK);
        }
        if (commandLine.isVersionHelpRequested()) {
            commandLine.printVersionHelp(new PrintWriter(out, true, StandardCharsets.UTF_8));
            return new Exit(EXIT_OK);
        }
        if (options.printSettings) {
            out.print(schema.renderPropertiesDocumentation());
            out.flush();
            return new Exit(EXIT_OK);
        }
        try {
            Settings settings = schema.validate(
                    SettingsSchema.load(options.configFile, options.overrides));
            return new Run(settings, Optional.ofNullable(options.pidFile));
        } catch (SettingsException e) {
            return new Exit(reportSettingsError(commandName, e, err));
        }
    }

    /**
     * Prints {@code <command>: <problems joined by "; ">} as one line.
     *
     * @return {@link #EXIT_USAGE}, for {@code return reportSettingsError(...)}
     */
    public static int reportSettingsError(String commandName, SettingsException error,
            PrintStream err) {
        err.println(commandName + ": " + error.getMessage());
        err.flush();
        return EXIT_USAGE;
    }

    /** For mains: {@link #launch} with the real streams and a JVM shutdown hook, then exits. */
    public void launchAndExit(String[] args, ServerStarter starter) {
        ShutdownSignal signal = new ShutdownSignal();
        Thread hook = new Thread(() -> {
            signal.request();
            try {
                if (!signal.awaitCompletion(SHUTDOWN_HOOK_WAIT_MS)) {
                    System.err.println(commandName + ": server did not stop within "
                            + SHUTDOWN_HOOK_WAIT_MS + " ms; exiting anyway");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, commandName + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int exitCode = launch(args, starter, System.out, System.err, signal);
        if (!signal.isRequested()) {
            // Exiting on our own (bad usage, failed start): the hook has nothing to wait for.
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        // When a signal triggered the shutdown, exit blocks until the hooks finish; that is fine.
        System.exit(exitCode);
    }

    /**
     * Parses, starts, announces readiness and blocks until {@code signal} is requested, then
     * closes the server and marks the signal completed.
     *
     * @return the process exit code
     */
    public int launch(String[] args, ServerStarter starter, PrintStream out, PrintStream err,
            ShutdownSignal signal) {
        try {
            Decision decision = parse(args, out, err);
            if (decision instanceof Exit exit) {
                return exit.exitCode();
            }
            Run run = (Run) decision;
            return runUntilShutdown(run, starter, out, err, signal);
        } finally {
            signal.markCompleted();
        }
    }

    private int runUntilShutdown(Run run, ServerStarter starter, PrintStream out,
            PrintStream err, ShutdownSignal signal) {
        RunningServer server;
        try {
            if (run.pidFile().isPresent()) {
                Files.writeString(run.pidFile().get(), ProcessHandle.current().pid() + "\n");
            }
            server = starter.start(run.settings());
        } catch (Exception e) {
            if (isEnvironmental(e)) {
                // The operator's to fix (a path, a port, a setting): the line below says what; a trace would bury it.
                LOG.debug("{} failed to start", commandName, e);
            } else {
                LOG.error("{} failed to start", commandName, e);
            }
            err.println(commandName + ": failed to start: " + describe(e));
            err.flush();
            run.pidFile().ifPresent(ServerLauncher::deleteQuietly);
            return EXIT_FAILURE;
        }
        LOG.info("{} started with {}", commandName, run.settings());
        out.println(ReadyAnnouncement.of(serviceName, server.address(), server.statusAddress()).line());
        out.flush();
        try {
            signal.awaitRequest();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("{} shutting down", commandName);
        int exitCode = EXIT_OK;
        try {
            server.close();
        } catch (Exception e) {
            LOG.error("{} failed to shut down cleanly", commandName, e);
            exitCode = EXIT_FAILURE;
        }
        run.pidFile().ifPresent(ServerLauncher::deleteQuietly);
        return exitCode;
    }

    /**
     * Whether a start failure comes from the environment (files, ports, the database, settings checked at start)
     * rather than a bug: such failures get one line on stderr, their stack trace only at DEBUG.
     */
    static boolean isEnvironmental(Throwable failure) {
        return failure instanceof IOException || failure instanceof IllegalArgumentException
                || failure instanceof IllegalStateException || failure instanceof KvException;
    }

    /** The failure's message, or its class when it has none, followed by its causes' when they add to it. */
    static String describe(Throwable failure) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
        for (Throwable cause = failure.getCause(); cause != null && cause != cause.getCause();
                cause = cause.getCause()) {
            if (cause.getMessage() != null && !message.contains(cause.getMessage())) {
                message += ": " + cause.getMessage();
            }
        }
        return message;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {}", file, e);
        }
    }
}
