package org.xtreemfs.foundation.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@link ExampleServerMain} as a real JVM to check exit codes and the shutdown hook. */
class ServerLauncherProcessTest {

    private static Process start(Path folder, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                ExampleServerMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(folder.toFile())
                .redirectError(folder.resolve("stderr.txt").toFile()).start();
    }

    @Test
    void sigtermClosesTheServerThroughTheHook(@TempDir Path folder) throws Exception {
        // Proves a real process prints READY with its bound ports and closes the server on SIGTERM. Both ports
        // were configured 0: the announced ones are where the process listens (what a launcher relies on instead
        // of choosing a "free" port first that another process could take before the server binds it).
        Path marker = folder.resolve("closed.marker");
        Path pidFile = folder.resolve("example.pid");
        Process process = start(folder, "--pid-file", pidFile.toString(),
                "-Dexample.closedMarkerFile=" + marker);
        try {
            BufferedReader stdout = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String ready = stdout.readLine();
            assertThat(ready).matches("READY example 127\\.0\\.0\\.1:[1-9][0-9]* status 127\\.0\\.0\\.1:[1-9][0-9]*");
            ReadyAnnouncement announced = ReadyAnnouncement.parse(ready).orElseThrow();
            assertThat(announced.status().port()).isNotEqualTo(announced.rpc().port());
            for (int port : new int[] {announced.rpc().port(), announced.status().port()}) {
                try (Socket connected = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    assertThat(connected.isConnected()).as("the process listens on announced port %d", port).isTrue();
                }
            }
            assertThat(Files.readString(pidFile).trim()).isEqualTo(Long.toString(process.pid()));
            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(marker)).isEqualTo("closed\n");
            assertThat(pidFile).doesNotExist();
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void badSettingExitsTwoWithOneLine(@TempDir Path folder) throws Exception {
        // Proves the process exit code and stderr line for an out-of-range setting.
        Process process = start(folder, "-Dexample.port=99999");
        try {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isEqualTo(2);
            assertThat(Files.readString(folder.resolve("stderr.txt"))).isEqualTo(
                    "xtreemfs-example: example.port: \"99999\" is out of range 0..65535"
                            + System.lineSeparator());
        } finally {
            process.destroyForcibly();
        }
    }
}
