package org.xtreemfs.osd;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;

/** Starts an OSD in a JVM of its own (so a test can kill it with SIGKILL) and waits for its READY line. */
final class OsdProcesses {
    private OsdProcesses() {}

    /**
     * Starts {@code OsdMain} with {@code settings} as -D options, stderr to {@code errorLog}; adds the process to
     * {@code started} (the caller kills what is left) and returns its RPC address once it printed READY.
     */
    static InetSocketAddress start(Map<String, String> settings, Path errorLog, List<Process> started)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"), OsdMain.class.getName()));
        settings.forEach((key, value) -> command.addAll(List.of("-D", key + "=" + value)));
        Process process = new ProcessBuilder(command).redirectError(errorLog.toFile()).start();
        started.add(process);
        BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                for (String next = stdout.readLine(); next != null; next = stdout.readLine()) {
                    if (next.startsWith("READY osd ")) {
                        return next;
                    }
                }
                throw new IllegalStateException("OSD process exited before READY; see " + errorLog);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).orTimeout(60, TimeUnit.SECONDS).join();
        return new InetSocketAddress("127.0.0.1", ReadyAnnouncement.parse(line).orElseThrow().rpc().port());
    }
}
