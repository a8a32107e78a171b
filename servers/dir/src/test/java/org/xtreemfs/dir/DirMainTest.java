package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.config.HostPort;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;
import org.xtreemfs.foundation.launcher.ServerLauncher;
import org.xtreemfs.foundation.launcher.ShutdownSignal;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;

class DirMainTest {
    @TempDir
    Path folder;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private int run(String... args) {
        return DirMain.launcher().launch(args, DirMain::start, out, err, new ShutdownSignal());
    }

    // --help exits 0 and lists the DIR's settings.
    @Test
    void helpListsSettings() {
        assertThat(run("--help")).isZero();
        assertThat(outBytes.toString(StandardCharsets.UTF_8)).contains("--config", "dir.heartbeat.timeoutMs",
                "dir.database.path");
    }

    // --print-settings prints every key as a properties file and exits 0.
    @Test
    void printSettingsPrintsEveryKey() {
        assertThat(run("--print-settings")).isZero();
        assertThat(outBytes.toString(StandardCharsets.UTF_8)).contains("dir.port = 32638", "dir.status.port = 30638");
    }

    // A bad value exits non-zero, before anything starts, with one line naming the key and the value.
    @Test
    void badValueExitsNonZeroNamingKeyAndValue() {
        assertThat(run("-Ddir.port=70000")).isEqualTo(ServerLauncher.EXIT_USAGE);
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("dir.port", "70000");
        assertThat(outBytes.toString(StandardCharsets.UTF_8)).doesNotContain("READY");
    }

    // An unknown key and a missing config file are both named in the error and exit non-zero.
    @Test
    void unknownKeyAndMissingFileAreNamed() {
        assertThat(run("-Ddir.heartbeat.timeout=5")).isNotZero();
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("dir.heartbeat.timeout");
        assertThat(run("--config", folder.resolve("nope.properties").toString())).isNotZero();
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("nope.properties");
    }

    // The DIR main starts with the shipped config plus overrides, prints READY with its real ports, serves, and stops on the signal.
    @Test
    void startsPrintsReadyServesAndStops() throws Exception {
        ShutdownSignal signal = new ShutdownSignal();
        CompletableFuture<Integer> exitCode = CompletableFuture.supplyAsync(() -> DirMain.launcher().launch(
                new String[] {"--config", "../../etc/dirconfig.properties", "-Ddir.bindAddress=127.0.0.1",
                    "-Ddir.port=0", "-Ddir.status.port=0", "-Ddir.database.path=" + folder.resolve("db")},
                DirMain::start, out, err, signal));
        ReadyAnnouncement ready = await().atMost(Duration.ofSeconds(30)).until(
                () -> ReadyAnnouncement.find("dir", outBytes.toString(StandardCharsets.UTF_8)), Optional::isPresent)
                .orElseThrow();
        HostPort address = ready.rpc();
        // The status page was configured 0 too: the announced port is where it serves.
        assertThat(java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + ready.status().port() + "/status.json")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        try (RpcClient rpcClient = new RpcClient("main-test")) {
            DirServiceClient dir = new DirServiceClient(rpcClient, address.toUnresolvedAddress(), 5_000);
            RpcClient.await(dir.ping());
        }
        signal.request();
        assertThat(exitCode.get()).isZero();
    }
}
