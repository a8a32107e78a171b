package org.xtreemfs.client.tools;

import java.io.PrintWriter;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.client.XtreemFSException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.files.FileErrors;
import picocli.CommandLine;

/**
 * Runs a tool's picocli command with the exit codes all tools share: 0 success, 1 the operation failed (the
 * server refused or could not be reached), 2 a bad option, argument or value. Every error is one line that
 * starts with the tool's name and names the bad value.
 */
public final class ToolRunner {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    private ToolRunner() {}

    public static int execute(Object command, PrintWriter out, PrintWriter err, String... args) {
        CommandLine commandLine = new CommandLine(command)
                .registerConverter(VolumeUrl.class, ToolRunner::convertUrl)
                .setOut(out)
                .setErr(err)
                .setParameterExceptionHandler((exception, arguments) -> {
                    CommandLine failed = exception.getCommandLine();
                    failed.getErr().println(failed.getCommandName() + ": " + exception.getMessage());
                    failed.getErr().println("Try '" + failed.getCommandName() + " --help' for the options.");
                    failed.getErr().flush();
                    return EXIT_USAGE;
                })
                .setExecutionExceptionHandler((exception, failed, parseResult) -> {
                    boolean badValue = exception instanceof IllegalArgumentException;
                    String message = exception instanceof XtreemFSException || badValue ? exception.getMessage()
                            : exception instanceof java.io.IOException local ? FileErrors.describe(local)
                            : "internal error: " + exception;
                    failed.getErr().println(failed.getCommandName() + ": " + message);
                    failed.getErr().flush();
                    return badValue ? EXIT_USAGE : EXIT_FAILED;
                });
        int exitCode = commandLine.execute(args);
        out.flush();
        err.flush();
        return exitCode;
    }

    /** Runs a tool as a process: System.out/err and System.exit. */
    public static void main(Object command, String[] args) {
        quietLogging();
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(execute(command, out, err, args));
    }

    /** Tools print their own one-line errors; library and Netty logs below WARN would only be noise. */
    private static void quietLogging() {
        if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    private static VolumeUrl convertUrl(String text) {
        try {
            return VolumeUrl.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
