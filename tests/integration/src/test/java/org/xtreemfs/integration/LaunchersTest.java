package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;

/** The bin/ tool scripts run the client module's build output as separate processes, with the exit codes. */
class LaunchersTest {
    private static final Path ROOT = Path.of(System.getProperty("xtreemfs.repository.root", "../.."))
            .toAbsolutePath().normalize();
    private static TestCluster cluster;

    private record Result(int exitCode, String out, String err) {}

    @BeforeAll
    static void startCluster() throws Exception {
        // The random volume the scripts create needs a random OSD to be admitted on.
        cluster = TestCluster.start(List.of(Map.of("osd.usage.type", "random", "osd.device.class", "ssd")), Map.of());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Result run(String script, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("bin").resolve(script).toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        builder.environment().put("BUILD_SUFFIX", System.getProperty("xtreemfs.build.suffix", ""));
        Path out = Files.createTempFile("tool-out", ".txt");
        Path err = Files.createTempFile("tool-err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(script + " did not finish within 60 s");
        }
        Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return result;
    }

    // Each script answers --help with exit 0.
    @Test
    void everyScriptHasHelp() throws Exception {
        for (String script : List.of("mkfs.xtreemfs", "rmfs.xtreemfs", "lsfs.xtreemfs", "xtfsutil", "xtreemfs-cluster")) {
            Result help = run(script, "--help");
            assertThat(help.exitCode()).as(script + ": " + help.err()).isZero();
            assertThat(help.out()).contains("Usage: " + script);
        }
    }

    // mkfs, lsfs, xtfsutil and rmfs work as processes against the cluster; failures exit 1 (server said no)
    // or 2 (bad value) with the value named on stderr and nothing else (no log noise).
    @Test
    void toolsAgainstTheCluster() throws Exception {
        String volumeUrl = cluster.dirUrl() + "/scripted";
        Result created = run("mkfs.xtreemfs", "--qos", "random", "--capacity", "1GiB", "--iops", "500", volumeUrl);
        assertThat(created.exitCode()).as(created.err()).isZero();
        assertThat(run("lsfs.xtreemfs", cluster.dirUrl()).out()).contains("scripted").contains("random capacity 1GiB iops 500");
        Result shown = run("xtfsutil", volumeUrl);
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("directory");

        Result again = run("mkfs.xtreemfs", volumeUrl);
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).startsWith("mkfs.xtreemfs: ").contains("scripted");
        assertThat(again.err().lines().count()).isEqualTo(1);

        Result badUnit = run("mkfs.xtreemfs", "--qos", "cold", "--capacity", "3TB", volumeUrl + "2");
        assertThat(badUnit.exitCode()).isEqualTo(2);
        assertThat(badUnit.err()).contains("'3TB'").contains("TiB");

        assertThat(run("rmfs.xtreemfs", volumeUrl).exitCode()).isZero();
        Result gone = run("rmfs.xtreemfs", volumeUrl);
        assertThat(gone.exitCode()).isEqualTo(1);
        assertThat(gone.err()).contains("scripted");
    }

    // The cluster launcher names bad values: a bad OSD description exits 2 before anything starts; a setting the
    // OSD rejects exits 1 with the OSD's own one-line error, and nothing it started is left running.
    @Test
    void clusterLauncherNamesBadValues() throws Exception {
        Path state = Files.createTempDirectory("launcher-test-");
        try {
            Result badSpec = run("xtreemfs-cluster", "start", "--state", state.toString(), "--osd", "usage=random,colour=blue");
            assertThat(badSpec.exitCode()).isEqualTo(2);
            assertThat(badSpec.err()).contains("unknown key 'colour'");
            assertThat(state.resolve("cluster.properties")).doesNotExist();

            Result badSetting = run("xtreemfs-cluster", "start", "--state", state.toString(), "--osd",
                    "name=wrong,osd.no.such.key=1");
            assertThat(badSetting.exitCode()).as(badSetting.err()).isEqualTo(1);
            assertThat(badSetting.err()).contains("wrong exited during start-up").contains("osd.no.such.key");
            Result status = run("xtreemfs-cluster", "status", "--state", state.toString());
            assertThat(status.exitCode()).isZero();
            assertThat(status.out()).contains("dir ").contains("wrong ").doesNotContain("running");
        } finally {
            deleteTree(state);
        }
    }

    // Issue 13: a storage path through a file made the DIR and the OSD print a stack trace without saying why,
    // and a taken status port was not named. Each now fails with exit 1 and one line naming the setting or the
    // port and the reason, and no stack trace.
    @Test
    void aBadStoragePathAndATakenStatusPortAreNamedInOneLine() throws Exception {
        Path folder = Files.createTempDirectory("launcher-paths-");
        Path file = Files.writeString(folder.resolve("a-file"), "not a folder");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            Result dir = run("xtreemfs-dir", "-D", "dir.database.path=" + file.resolve("db"), "-D", "dir.port=0",
                    "-D", "dir.status.port=0");
            assertThat(dir.exitCode()).isEqualTo(1);
            assertThat(dir.err()).contains("xtreemfs-dir: failed to start: dir.database.path = " + file.resolve("db")
                    + " cannot be used: " + file.resolve("db") + ": Not a directory").doesNotContain("\tat ");

            Result osd = run("xtreemfs-osd", "-D", "osd.object.path=" + file.resolve("objects"), "-D", "osd.port=0",
                    "-D", "osd.status.port=0", "-D", "osd.dir.address=127.0.0.1:1", "-D",
                    "capability.secret=" + "ab12".repeat(8));
            assertThat(osd.exitCode()).isEqualTo(1);
            assertThat(osd.err()).contains("xtreemfs-osd: failed to start: osd.object.path = "
                    + file.resolve("objects") + " cannot be used").doesNotContain("\tat ");

            Result busy = run("xtreemfs-dir", "-D", "dir.database.path=" + folder.resolve("db"), "-D", "dir.port=0",
                    "-D", "dir.bindAddress=127.0.0.1", "-D", "dir.status.port=" + taken.getLocalPort());
            assertThat(busy.exitCode()).isEqualTo(1);
            assertThat(busy.err()).contains("xtreemfs-dir: failed to start: status page cannot listen on 127.0.0.1:"
                    + taken.getLocalPort() + ": Address already in use").doesNotContain("\tat ");
        } finally {
            deleteTree(folder);
        }
    }

    // Issue 13's launcher edges: a restart truncated the server's log (losing the crash's evidence) and a dying
    // process was shown as running. A killed server is shown not running, and its restart keeps the old log.
    @Test
    void aKilledServerIsNotRunningAndItsRestartKeepsTheOldLog() throws Exception {
        Path state = Files.createTempDirectory("launcher-restart-");
        try {
            Result started = run("xtreemfs-cluster", "start", "--state", state.toString(), "--osds", "1");
            assertThat(started.exitCode()).as(started.err()).isZero();
            assertThat(run("xtreemfs-cluster", "kill", "--state", state.toString(), "osd0").exitCode()).isZero();
            Result status = run("xtreemfs-cluster", "status", "--state", state.toString());
            assertThat(status.out().lines().filter(line -> line.startsWith("osd0 ")).findFirst().orElseThrow())
                    .doesNotContain("running");
            assertThat(status.out().lines().filter(line -> line.startsWith("mrc ")).findFirst().orElseThrow())
                    .contains("running");
            Result restarted = run("xtreemfs-cluster", "restart", "--state", state.toString(), "osd0");
            assertThat(restarted.exitCode()).as(restarted.err()).isZero();
            Path log = state.resolve("log/osd0.log");
            assertThat(Files.readString(log.resolveSibling("osd0.log.1"))).as("the killed run's log").contains("READY osd");
            assertThat(Files.readString(log)).contains("READY osd");
        } finally {
            run("xtreemfs-cluster", "stop", "--state", state.toString());
            deleteTree(state);
        }
    }

    // The fresh-clone CI run's port race ("mrc exited during start-up; ... status page cannot listen on
    // 127.0.0.1:44231: Address already in use"): the launcher chose "free" status ports by opening and closing a
    // socket, and another process could take one before the server bound it. Now every server is started with status
    // port 0, binds whatever the kernel gives it and announces it in its READY line; the launcher keeps exactly the
    // announced port (status, status --shell) and a restart binds it again.
    @Test
    void statusPortsAreChosenByTheServersAndKeptAsAnnounced() throws Exception {
        Path state = Files.createTempDirectory("launcher-status-");
        try {
            Result started = run("xtreemfs-cluster", "start", "--state", state.toString(), "--osds", "1",
                    "--status-ports");
            assertThat(started.exitCode()).as(started.err()).isZero();
            Map<String, String> shell = shellAssignments(state);
            Map<String, Integer> statusPorts = Map.of("dir", Integer.parseInt(shell.get("dir_status_port")),
                    "mrc", Integer.parseInt(shell.get("mrc_status_port")),
                    "osd0", Integer.parseInt(shell.get("osd_status_ports").replaceAll("[()]", "")));
            assertThat(java.util.Set.copyOf(statusPorts.values())).as("three distinct ports: %s", statusPorts)
                    .hasSize(3).doesNotContain(0);
            for (Map.Entry<String, Integer> server : statusPorts.entrySet()) {
                String kind = server.getKey().startsWith("osd") ? "osd" : server.getKey();
                assertThat(serverCommandLine(state, kind)).as("what the launcher asked of " + server.getKey())
                        .contains(kind + ".status.port=0 ");
                String log = Files.readString(state.resolve("log/" + server.getKey() + ".log"), StandardCharsets.UTF_8);
                assertThat(ReadyAnnouncement.find(kind, log).orElseThrow().status().port())
                        .as("the port %s announced", server.getKey()).isEqualTo(server.getValue());
                assertThat(statusJsonCode(server.getValue())).as(server.getKey() + "'s status page").isEqualTo(200);
            }
            assertThat(run("xtreemfs-cluster", "status", "--state", state.toString()).out())
                    .contains("http://127.0.0.1:" + statusPorts.get("mrc") + "/");

            Result restarted = run("xtreemfs-cluster", "restart", "--state", state.toString(), "osd0");
            assertThat(restarted.exitCode()).as(restarted.err()).isZero();
            assertThat(shellAssignments(state).get("osd_status_ports")).isEqualTo("(" + statusPorts.get("osd0") + ")");
            assertThat(serverCommandLine(state, "osd")).contains("osd.status.port=" + statusPorts.get("osd0") + " ");
            assertThat(statusJsonCode(statusPorts.get("osd0"))).isEqualTo(200);
        } finally {
            run("xtreemfs-cluster", "stop", "--state", state.toString());
            deleteTree(state);
        }
    }

    /** {@code xtreemfs-cluster status --shell}'s assignments, NAME to VALUE (arrays with their parentheses). */
    private static Map<String, String> shellAssignments(Path state) throws Exception {
        Result status = run("xtreemfs-cluster", "status", "--state", state.toString(), "--shell");
        assertThat(status.exitCode()).as(status.err()).isZero();
        Map<String, String> assignments = new java.util.HashMap<>();
        status.out().lines().filter(line -> line.contains("=")).forEach(line ->
                assignments.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1)));
        return assignments;
    }

    /** The command line (with a space after it) of the one running server process of {@code kind} in {@code state}. */
    private static String serverCommandLine(Path state, String kind) {
        String main = Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + "Main";
        List<String> lines = ProcessHandle.allProcesses().map(process -> process.info().commandLine().orElse(""))
                .filter(line -> line.contains(state.toString()) && line.contains(main)).toList();
        assertThat(lines).as("%s processes of %s", main, state).hasSize(1);
        return lines.get(0) + " ";
    }

    private static int statusJsonCode(int port) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/status.json")).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    // The launcher's OSDs store on one file system, so each offers the MRC a part of what is usable there, not the
    // whole disk each (admission would otherwise promise the same bytes to every OSD's volumes).
    @Test
    void theLauncher_sOsdsOfferTheirPartOfTheSharedFileSystem() throws Exception {
        long usableBytes = Files.getFileStore(cluster.root()).getUsableSpace();
        try (var client = cluster.qosClient()) {
            var osds = client.qosStatus().getOsdsList();
            assertThat(osds).isNotEmpty().allSatisfy(osd -> assertThat(osd.getProfile().getCapacityBytes())
                    .as("capacity offered by %s", osd.getUuid()).isPositive()
                    .isLessThanOrEqualTo(Files.getFileStore(cluster.root()).getTotalSpace() / osds.size())
                    // the part was taken from the usable space at start; data written since only lowers it
                    .isLessThanOrEqualTo(usableBytes / osds.size() + (1L << 30)));
        }
    }

    // The launcher's cluster shares a fresh random capability secret through a file only its user can read; no
    // server's command line (readable by any local user in /proc) and no state file carries the secret itself.
    @Test
    void theClusterSecretIsInAPrivateFileAndNeverOnACommandLine() throws Exception {
        Path state = Files.createTempDirectory("launcher-secret-");
        try {
            Result started = run("xtreemfs-cluster", "start", "--state", state.toString(), "--osds", "1");
            assertThat(started.exitCode()).as(started.err()).isZero();
            Path secretFile = state.resolve("capability.secret");
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile)))
                    .isEqualTo("rw-------");
            String secret = Files.readString(secretFile, StandardCharsets.UTF_8).strip();
            assertThat(secret).hasSizeGreaterThanOrEqualTo(32);
            List<String> serverCommandLines = ProcessHandle.allProcesses()
                    .map(process -> process.info().commandLine().orElse(""))
                    .filter(line -> line.contains(state.toString())).toList();
            assertThat(serverCommandLines).hasSize(3).allSatisfy(line -> assertThat(line).doesNotContain(secret));
            // The MRC signs capabilities and the OSD checks them; the DIR needs no secret.
            assertThat(serverCommandLines).filteredOn(line -> line.contains("capability.secretFile=" + secretFile))
                    .hasSize(2).anyMatch(line -> line.contains("MrcMain")).anyMatch(line -> line.contains("OsdMain"));
            assertThat(Files.readString(state.resolve("cluster.properties"), StandardCharsets.UTF_8))
                    .doesNotContain(secret);
        } finally {
            run("xtreemfs-cluster", "stop", "--state", state.toString());
            deleteTree(state);
        }
    }

    private static void deleteTree(Path folder) throws IOException {
        try (var paths = Files.walk(folder)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
