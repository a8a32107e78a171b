package org.xtreemfs.integration;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An OSD in its own JVM (OsdMain, the test classpath), so a test can kill it with SIGKILL mid-write. Its
 * output goes to {@code osd.log} next to its data; {@link #start} returns once it printed its READY line.
 */
final class OsdProcess implements AutoCloseable {
    private static final long READY_TIMEOUT_S = 60;
    private final Process process;

    private OsdProcess(Process process) {
        this.process = process;
    }

    static OsdProcess start(Path dataFolder, String dirHostPort, Map<String, String> overrides) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "org.xtreemfs.osd.OsdMain"));
        Map<String, String> settings = new java.util.HashMap<>(Map.of(
                "osd.bindAddress", "127.0.0.1", "osd.port", "0", "osd.status.port", "0",
                "osd.object.path", dataFolder.toString(), "osd.dir.address", dirHostPort,
                "osd.heartbeat.periodMs", "300", "osd.deletion.delayMs", "0",
                "capability.secret", TestCluster.CAPABILITY_SECRET));
        settings.putAll(overrides);
        settings.forEach((key, value) -> {
            command.add("-D");
            command.add(key + "=" + value);
        });
        java.nio.file.Files.createDirectories(dataFolder);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Path log = dataFolder.resolveSibling(dataFolder.getFileName() + ".log");
        Thread drain = new Thread(() -> drain(process, log, ready), "osd-process-output");
        drain.setDaemon(true);
        drain.start();
        try {
            ready.get(READY_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IllegalStateException("OSD process did not print READY within " + READY_TIMEOUT_S
                    + " s; see " + log, e);
        }
        return new OsdProcess(process);
    }

    private static void drain(Process process, Path log, CompletableFuture<String> ready) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)); var writer = java.nio.file.Files.newBufferedWriter(log,
                StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND)) {
            String line;
            while ((line = reader.readLine()) != null) {
                writer.write(line);
                writer.newLine();
                writer.flush();
                if (line.startsWith("READY osd ")) {
                    ready.complete(line);
                }
            }
            ready.completeExceptionally(new IOException("OSD process exited with " + process.waitFor()));
        } catch (IOException | InterruptedException e) {
            ready.completeExceptionally(e);
        }
    }

    /** SIGKILL: no shutdown hook, no flush; what is on disk is what survives. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
