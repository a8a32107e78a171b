package org.xtreemfs.foundation.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

class ServerLauncherTest {

    static final Setting<Integer> PORT = Setting.port("osd.port", 32640, "RPC port of the OSD.");
    static final Setting<Long> CACHE = Setting.byteSize("osd.cacheBytes", 1L << 20, 0, 1L << 30,
            "Cache size; 100% means nothing here.");
    static final SettingsSchema SCHEMA = SettingsSchema.of("osd", PORT, CACHE);

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final ServerLauncher launcher = new ServerLauncher("osd", "1.2.3", SCHEMA);

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpListsOptionsAndEverySetting() {
        // Proves --help exits 0 and documents the common options and each schema setting.
        assertThat(launcher.parse(new String[] {"--help"}, out, err))
                .isEqualTo(new ServerLauncher.Exit(0));
        assertThat(out()).contains("Usage: xtreemfs-osd", "--config=FILE", "-D=key=value",
                "--print-settings", "osd.port", "RPC port of the OSD.", "100% means nothing");
    }

    @Test
    void versionAndPrintSettingsExitZero() {
        // Proves --version prints the version and --print-settings prints the documented defaults.
        assertThat(launcher.parse(new String[] {"--version"}, out, err))
                .isEqualTo(new ServerLauncher.Exit(0));
        assertThat(out()).contains("xtreemfs-osd 1.2.3");
        assertThat(launcher.parse(new String[] {"--print-settings"}, out, err))
                .isEqualTo(new ServerLauncher.Exit(0));
        assertThat(out()).contains("osd.port = 32640", "osd.cacheBytes = 1MiB");
    }

    @Test
    void badSettingIsOneLineOnStderrWithExitTwo() {
        // Proves an out-of-range override yields exit code 2 and one line naming key and value.
        ServerLauncher.Decision decision = launcher.parse(
                new String[] {"-D", "osd.port=70000"}, out, err);
        assertThat(decision).isEqualTo(new ServerLauncher.Exit(2));
        assertThat(err()).isEqualTo("xtreemfs-osd: osd.port: \"70000\" is out of range 0..65535"
                + System.lineSeparator());
    }

    @Test
    void unknownOptionAndMissingConfigFileExitTwo(@TempDir Path folder) {
        // Proves bad usage and an absent config file are usage errors naming the culprit.
        assertThat(launcher.parse(new String[] {"--bogus"}, out, err))
                .isEqualTo(new ServerLauncher.Exit(2));
        assertThat(err()).contains("--bogus").contains("try --help");
        Path missing = folder.resolve("missing.properties");
        assertThat(launcher.parse(new String[] {"--config", missing.toString()}, out, err))
                .isEqualTo(new ServerLauncher.Exit(2));
        assertThat(err()).contains("missing.properties: config file does not exist");
    }

    @Test
    void configFileAndOverridesReachTheSettings(@TempDir Path folder) throws Exception {
        // Proves -Dkey=value wins over the config file and both reach the validated settings.
        Path config = folder.resolve("osd.properties");
        Files.writeString(config, "osd.port = 1000\nosd.cacheBytes = 4MiB\n");
        ServerLauncher.Decision decision = launcher.parse(
                new String[] {"--config", config.toString(), "-Dosd.port=2000"}, out, err);
        assertThat(decision).isInstanceOfSatisfying(ServerLauncher.Run.class, run -> {
            assertThat(run.settings().get(PORT)).isEqualTo(2000);
            assertThat(run.settings().get(CACHE)).isEqualTo(4L << 20);
        });
    }

    @Test
    void launchAnnouncesReadyWritesPidAndClosesOnSignal(@TempDir Path folder) throws Exception {
        // Proves the full run: READY line with the bound address, pid file, close on shutdown.
        Path pidFile = folder.resolve("osd.pid");
        AtomicReference<Settings> started = new AtomicReference<>();
        AtomicBoolean closed = new AtomicBoolean();
        InetSocketAddress bound = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);
        InetSocketAddress statusBound = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40124);
        ShutdownSignal signal = new ShutdownSignal();
        CompletableFuture<Integer> exitCode = CompletableFuture.supplyAsync(() -> launcher.launch(
                new String[] {"-D", "osd.port=0", "--pid-file", pidFile.toString()},
                settings -> {
                    started.set(settings);
                    return new RunningServer() {
                        @Override
                        public InetSocketAddress address() {
                            return bound;
                        }

                        @Override
                        public InetSocketAddress statusAddress() {
                            return statusBound;
                        }

                        @Override
                        public void close() {
                            closed.set(true);
                        }
                    };
                }, out, err, signal));
        await().until(() -> out().contains("READY"));
        assertThat(out()).isEqualTo("READY osd 127.0.0.1:40123 status 127.0.0.1:40124" + System.lineSeparator());
        assertThat(Files.readString(pidFile).trim())
                .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        assertThat(started.get().get(PORT)).isZero();
        assertThat(closed).isFalse();
        signal.request();
        assertThat(exitCode.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(signal.awaitCompletion(0)).isTrue();
        assertThat(closed).isTrue();
        assertThat(pidFile).doesNotExist();
    }

    @Test
    void failedStartExitsOneWithTheReason() {
        // Proves a starter exception becomes exit code 1 and a one-line reason on stderr.
        int exitCode = launcher.launch(new String[0], settings -> {
            throw new IllegalStateException("port 32640 is in use");
        }, out, err, new ShutdownSignal());
        assertThat(exitCode).isEqualTo(1);
        assertThat(err()).contains("xtreemfs-osd: failed to start: port 32640 is in use");
        assertThat(out()).doesNotContain("READY");
    }
}
