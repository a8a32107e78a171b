package org.xtreemfs.client.tools.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;

/**
 * Runs each server as its own process in its own session (Ctrl-C on a terminal reaches the caller only),
 * with umask 077 (nothing it writes is readable by other users), stdin from /dev/null and stdout and stderr
 * in its log file (created 0600), so it outlives the process that started
 * it (the CLI exits after {@code start}). A process is recognised again by its pid and by its command
 * line, which contains its data folder (inside the cluster's state folder): a pid reused by an unrelated
 * process is never signalled. A server with a network namespace ({@link NetworkHost}) starts through
 * {@code nsenter --net}, which execs it (same pid).
 */
public final class ProcessRunner implements ServerRunner {
    /** How long a server gets after SIGTERM before SIGKILL. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 20;

    private final java.util.function.Function<ServerKind, List<String>> commandPrefix;
    private final Map<String, String> environment;

    private ProcessRunner(java.util.function.Function<ServerKind, List<String>> commandPrefix,
            Map<String, String> environment) {
        this.commandPrefix = commandPrefix;
        this.environment = environment;
    }

    /**
     * Servers run through the repository's launchers (bin/xtreemfs-dir, -mrc, -osd). {@code serverJavaOptions}
     * becomes their JAVA_OPTS (empty: the JVM's defaults), so a tool's fast-start flags do not leak into them.
     */
    public static ProcessRunner scripts(Path repository, String serverJavaOptions) {
        return new ProcessRunner(kind -> List.of(repository.resolve("bin").resolve("xtreemfs-" + kind.shortName())
                .toString()), Map.of("JAVA_OPTS", serverJavaOptions));
    }

    /** Servers run as {@code java OPTIONS -cp CLASSPATH MAIN}: the integration tests' own classpath. */
    public static ProcessRunner classpath(String classpath, List<String> jvmOptions) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessRunner(kind -> {
            List<String> command = new ArrayList<>();
            command.add(java);
            command.addAll(jvmOptions);
            command.addAll(List.of("-cp", classpath, kind.mainClass()));
            return command;
        }, Map.of());
    }

    @Override
    public RunningServer start(ServerSpec spec) throws IOException {
        List<String> command = new ArrayList<>();
        // umask 077: what the server creates itself and what its libraries create (RocksDB's files) is 0600/0700.
        command.addAll(List.of("sh", "-c", "umask 077 && exec \"$@\"", "sh"));
        command.add("setsid");
        if (!spec.networkNamespace().isEmpty()) {
            // Only the network namespace: the server keeps this machine's files and mounts (ip netns exec would
            // give it a mount namespace of its own too).
            Path namespace = NetworkHost.NAMESPACES.resolve(spec.networkNamespace());
            if (!Files.exists(namespace)) {
                throw new IOException("network namespace " + spec.networkNamespace() + " of " + spec.name()
                        + " does not exist (no " + namespace + "; make it with ip netns add)");
            }
            command.addAll(List.of("nsenter", "--net=" + namespace));
        }
        command.addAll(commandPrefix.apply(spec.kind()));
        spec.settings().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(setting -> {
            command.add("-D");
            command.add(setting.getKey() + "=" + setting.getValue());
        });
        PrivateFiles.createFolders(spec.log().getParent());
        keepPreviousLog(spec.log());
        PrivateFiles.createFile(spec.log()); // 0600 before the server writes to it
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.log().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        Process process = builder.start();
        return new ServerProcess(spec, process.toHandle());
    }

    @Override
    public Optional<RunningServer> find(ServerSpec spec, long pid) {
        return ProcessHandle.of(pid).filter(handle -> ServerProcess.isServerOf(handle, spec))
                .map(handle -> new ServerProcess(spec, handle));
    }

    /** A restarted server writes a fresh log; the previous one is kept beside it as LOG.1, LOG.2, ... */
    private static void keepPreviousLog(Path log) throws IOException {
        if (!Files.exists(log)) {
            return;
        }
        int number = 1;
        while (Files.exists(log.resolveSibling(log.getFileName() + "." + number))) {
            number++;
        }
        Files.move(log, log.resolveSibling(log.getFileName() + "." + number));
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    private static final class ServerProcess implements RunningServer {
        private final ServerSpec spec;
        private final ProcessHandle handle;

        ServerProcess(ServerSpec spec, ProcessHandle handle) {
            this.spec = spec;
            this.handle = handle;
        }

        /**
         * The data folder setting names a folder inside the cluster's state folder: no other process has it on its
         * command line (followed by a space or at the end, so osd1 does not match osd10's folder).
         */
        static boolean isServerOf(ProcessHandle handle, ServerSpec spec) {
            String key = ClusterLayout.dataKey(spec.kind());
            String marker = key + "=" + spec.settings().get(key);
            return handle.isAlive() && handle.info().commandLine()
                    .map(line -> line.contains(marker + " ") || line.endsWith(marker)).orElse(false);
        }

        @Override
        public long pid() {
            return handle.pid();
        }

        @Override
        public Optional<ReadyAnnouncement> ready() {
            // Taken before the log is read: when false, the log read below is complete, so "exited during start-up"
            // is reported only for a server that never announced.
            boolean alive = handle.isAlive();
            try {
                // Only whole lines count (find), so a line being written is read on the next poll, never cut short;
                // bytes that are no UTF-8 (a library's output) are replaced, not thrown.
                Optional<ReadyAnnouncement> announced = ReadyAnnouncement.find(spec.kind().shortName(),
                        new String(Files.readAllBytes(spec.log()), StandardCharsets.UTF_8));
                if (announced.isPresent()) {
                    return announced;
                }
            } catch (IOException e) {
                // No log yet: look again on the next poll.
            } catch (IllegalArgumentException e) {
                throw new ClusterException(spec.name() + " printed a bad READY line (" + e.getMessage() + "); see "
                        + spec.log());
            }
            if (!alive) {
                throw new ClusterException(spec.name() + " exited during start-up; last lines of " + spec.log()
                        + ":\n" + tail(spec.log()));
            }
            return Optional.empty();
        }

        @Override
        public boolean alive() {
            return handle.isAlive();
        }

        @Override
        public void signal(String signal) {
            try {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(handle.pid()))
                        .redirectErrorStream(true).start();
                String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (kill.waitFor() != 0 && handle.isAlive()) {
                    throw new ClusterException("kill -" + signal + " " + handle.pid() + " failed: " + output);
                }
                if (signal.equals("KILL") || signal.equals("9") || signal.equals("TERM") || signal.equals("15")) {
                    awaitExit(signal.equals("KILL") || signal.equals("9") ? KILL_TIMEOUT : STOP_TIMEOUT);
                }
            } catch (IOException e) {
                throw new ClusterException("cannot run kill for " + spec.name() + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClusterException("interrupted while signalling " + spec.name(), e);
            }
        }

        private void awaitExit(Duration timeout) throws InterruptedException {
            try {
                handle.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new ClusterException(spec.name() + " (pid " + handle.pid() + ") still runs "
                        + timeout.toSeconds() + " s after the signal");
            } catch (java.util.concurrent.ExecutionException e) {
                throw new ClusterException("waiting for " + spec.name() + " to end failed", e);
            }
        }

        @Override
        public void stop() {
            if (!handle.isAlive()) {
                return;
            }
            signal("CONT"); // a stopped process cannot handle SIGTERM
            try {
                signal("TERM");
            } catch (ClusterException stillRunning) {
                signal("KILL");
            }
        }
    }
}
