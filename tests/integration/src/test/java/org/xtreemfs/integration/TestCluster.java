package org.xtreemfs.integration;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.tools.cluster.ClusterDescription;
import org.xtreemfs.client.tools.cluster.LocalCluster;
import org.xtreemfs.client.tools.cluster.OsdDescription;
import org.xtreemfs.client.tools.cluster.ProcessRunner;
import org.xtreemfs.client.tools.cluster.ServerRunner;
import org.xtreemfs.dir.DirServer;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.mrc.MrcServer;
import org.xtreemfs.osd.OsdServer;

/**
 * The integration tests' cluster: a DIR, an MRC and N OSDs started by the project's launcher
 * ({@link LocalCluster}, the same code as bin/xtreemfs-cluster) under one temporary folder. By default the
 * servers run inside this JVM ({@link InProcessRunner}: fast, and {@link #mrc()}/{@link #osd} give the server
 * objects); {@link #startProcesses} runs them as separate processes from the test classpath, for SIGKILL.
 * {@link #startMrc}/{@link #startOsd} start a stopped server on the same data but a new port, so clients
 * must find it again through the DIR; {@link #kill}/{@link #restart} (processes) keep the port. Processes get
 * the status ports the servers bound and announced at start, so {@code launcher().status()} names them.
 * Heartbeats are fast so a restarted service is visible quickly.
 */
final class TestCluster implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final String HEARTBEAT_PERIOD_MS = "300";
    /** The servers' JVM flags when they run as processes: small heaps, fast start. */
    private static final List<String> PROCESS_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    private final Path root;
    private final LocalCluster cluster;
    private final RpcClient probeRpc;
    private final DirServiceClient probe;
    /** Every server process of this cluster seen running (restarts included), for {@link #closeLeavingNoProcess}. */
    private final java.util.Set<Long> serverPids = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Clusters not closed yet. Servers run as processes in their own sessions (setsid), so they outlive a test JVM
     * that is terminated (a build stopped with SIGTERM, a fork timeout) unless it kills them: the shutdown hook
     * below does, with SIGKILL (an orderly stop takes seconds per server). Only SIGKILL of the test JVM itself
     * still leaves them behind.
     */
    private static final java.util.Set<TestCluster> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(TestCluster::killServerProcesses),
                "test-cluster-reaper"));
    }

    private TestCluster(Path root, LocalCluster cluster) {
        this.root = root;
        this.cluster = cluster;
        OPEN.add(this);
        this.probeRpc = new RpcClient("test-cluster-probe", FrameLimits.DEFAULT, RpcClient.CONNECT_TIMEOUT_MS_DEFAULT,
                cluster.clientTls());
        this.probe = new DirServiceClient(probeRpc, cluster.dirSocketAddress(), 5_000);
        noteServerPids();
    }

    /** Starts a cluster with {@code osdCount} OSDs and waits until the DIR lists all of them and the MRC. */
    static TestCluster start(int osdCount) throws Exception {
        return start(osdCount, Map.of(), Map.of());
    }

    /** Starts a cluster whose OSDs and MRC get these settings on top of the test defaults. */
    static TestCluster start(int osdCount, Map<String, String> osdOverrides, Map<String, String> mrcOverrides)
            throws Exception {
        return start(java.util.Collections.nCopies(osdCount, osdOverrides), mrcOverrides);
    }

    /** Starts a cluster with one OSD per map (typed OSDs: each map holds that OSD's settings). */
    static TestCluster start(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides)
            throws Exception {
        return start(perOsdOverrides, mrcOverrides, new InProcessRunner(), false, ClusterDescription.Tls.OFF);
    }

    /**
     * A cluster (in this JVM) whose every RPC port speaks TLS with certificates of a test CA the launcher makes;
     * {@link #client} clients then present the administrator's certificate (CN=root).
     */
    static TestCluster startTls(int osdCount, ClusterDescription.Tls tls, Map<String, String> mrcOverrides)
            throws Exception {
        return start(java.util.Collections.nCopies(osdCount, Map.of()), mrcOverrides, Map.of(), new InProcessRunner(),
                false, tls, java.util.Set.of());
    }

    /**
     * A mixed cluster (in this JVM): TLS (without client certificates) on every RPC port but those of
     * {@code plainServers} (names: "dir", "mrc", "osd0", ...), which stay plain and trust the test CA for their calls
     * to the TLS servers.
     */
    static TestCluster startMixedTls(int osdCount, java.util.Set<String> plainServers) throws Exception {
        return start(java.util.Collections.nCopies(osdCount, Map.of()), Map.of(), Map.of(), new InProcessRunner(),
                false, ClusterDescription.Tls.ON, plainServers);
    }

    /** The same as {@link #start(int)} with every server in its own process (OsdMain etc., test classpath). */
    static TestCluster startProcesses(int osdCount) throws Exception {
        return startProcesses(java.util.Collections.nCopies(osdCount, Map.of()), Map.of());
    }

    /** The same as {@link #start(List, Map)} with every server in its own process. */
    static TestCluster startProcesses(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides)
            throws Exception {
        return startProcesses(perOsdOverrides, mrcOverrides, Map.of());
    }

    /**
     * Three OSD processes for chain failure tests: the DIR declares a server dead after
     * {@code dirHeartbeatTimeoutMs} without a heartbeat (so the MRC removes a killed chain member soon), and the
     * MRC's OSD list is refreshed every 100 ms (so a restarted OSD is placeable again soon).
     */
    static TestCluster startChainProcesses(long dirHeartbeatTimeoutMs) throws Exception {
        return startProcesses(java.util.Collections.nCopies(3, Map.of()), Map.of("mrc.placement.osdCacheTtlMs", "100"),
                Map.of("dir.heartbeat.timeoutMs", Long.toString(dirHeartbeatTimeoutMs)));
    }

    /** The same with the DIR's settings too (e.g. a short dir.heartbeat.timeoutMs). */
    static TestCluster startProcesses(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides,
            Map<String, String> dirOverrides) throws Exception {
        return start(perOsdOverrides, mrcOverrides, dirOverrides,
                ProcessRunner.classpath(System.getProperty("java.class.path"), PROCESS_JVM_OPTIONS), true,
                ClusterDescription.Tls.OFF, java.util.Set.of());
    }

    /** @param statusPorts whether the status ports the servers announce are kept (processes: read them from status()) */
    private static TestCluster start(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides,
            ServerRunner runner, boolean statusPorts, ClusterDescription.Tls tls) throws Exception {
        return start(perOsdOverrides, mrcOverrides, Map.of(), runner, statusPorts, tls, java.util.Set.of());
    }

    private static TestCluster start(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides,
            Map<String, String> dirOverrides, ServerRunner runner, boolean statusPorts, ClusterDescription.Tls tls,
            java.util.Set<String> plainServers) throws Exception {
        List<OsdDescription> osds = new ArrayList<>();
        for (Map<String, String> overrides : perOsdOverrides) {
            Map<String, String> settings = new HashMap<>(Map.of("osd.heartbeat.periodMs", HEARTBEAT_PERIOD_MS,
                    "osd.storage.threads", "2"));
            settings.putAll(overrides);
            osds.add(new OsdDescription("osd" + osds.size(), settings));
        }
        Map<String, String> mrcSettings = new HashMap<>(Map.of("mrc.heartbeat.periodMs", HEARTBEAT_PERIOD_MS));
        mrcSettings.putAll(mrcOverrides);
        Path root = Files.createTempDirectory("xtreemfs-it-");
        try {
            return new TestCluster(root, LocalCluster.start(new ClusterDescription(osds, dirOverrides, mrcSettings,
                    statusPorts, tls, Map.of(), plainServers), root, runner));
        } catch (RuntimeException | Error e) {
            deleteRecursively(root);
            throw e;
        }
    }

    /** The launcher's cluster: names "dir", "mrc", "osd0", ... */
    LocalCluster launcher() {
        return cluster;
    }

    private static String osdName(int index) {
        return "osd" + index;
    }

    void startMrc() {
        cluster.startServerOnNewPort("mrc");
    }

    void stopMrc() {
        cluster.stopServer("mrc");
    }

    void startOsd(int index) {
        cluster.startServerOnNewPort(osdName(index));
    }

    void stopOsd(int index) {
        cluster.stopServer(osdName(index));
    }

    /** Sends a signal (KILL, TERM; STOP and CONT with processes only) to a server: "mrc", "osd0", ... */
    void kill(String name, String signal) {
        cluster.kill(name, signal);
    }

    /**
     * Holds a server process back: SIGSTOP, then returns once the kernel shows it stopped (state T in
     * /proc/PID/stat), so that from the return on it serves nothing until {@link #resume}. Callers resume it in a
     * finally block (a stopped server does not end on SIGTERM; {@link #close} would wait for it in vain).
     */
    void holdBack(String name) {
        long pid = cluster.status().stream().filter(server -> server.name().equals(name) && server.running())
                .mapToLong(LocalCluster.ServerStatus::pid).findFirst()
                .orElseThrow(() -> new IllegalStateException(name + " does not run as a process"));
        kill(name, "STOP");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> processState(pid) == 'T');
    }

    /** Lets a server held back by {@link #holdBack} run again (SIGCONT). */
    void resume(String name) {
        kill(name, "CONT");
    }

    /** The state letter of /proc/PID/stat (R, S, T, ...): the field after the command name in parentheses. */
    private static char processState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    /** Starts a (killed) server again on the same port and data and waits until it is registered. */
    void restart(String name) {
        cluster.restart(name);
        noteServerPids();
    }

    private void noteServerPids() {
        for (LocalCluster.ServerStatus server : cluster.status()) {
            if (server.running() && server.pid() > 0 && server.pid() != ProcessHandle.current().pid()) {
                serverPids.add(server.pid());
            }
        }
    }

    /**
     * {@link #close}, then waits up to 30 s until no server process this cluster ever ran is alive, and fails if
     * one is: a test that leaks servers is a bug (a leak once left OSDs running with parent 1).
     */
    void closeLeavingNoProcess() {
        noteServerPids();
        close();
        await().atMost(Duration.ofSeconds(30)).until(() -> serverPids.stream()
                .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
    }

    /** Stops the MRC and every OSD, starts them again on the same data and waits until the DIR lists them. */
    void restartMrcAndOsds() {
        stopMrc();
        List<String> osds = cluster.osdNames();
        osds.forEach(cluster::stopServer);
        osds.forEach(cluster::startServerOnNewPort);
        startMrc();
        awaitServicesAvailable();
    }

    /** Waits until the DIR lists the current MRC and every OSD as available at their current addresses. */
    void awaitServicesAvailable() {
        List<String> osdUuids = osdUuids();
        await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            List<Service> services = RpcClient.await(probe.serviceGetByType(ServiceType.SERVICE_TYPE_UNSPECIFIED,
                    false)).getServicesList();
            long mrcs = services.stream().filter(service -> service.getType() == ServiceType.SERVICE_TYPE_MRC
                    && service.getUuid().equals(cluster.uuid("mrc"))
                    && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE).count();
            long osdsAvailable = services.stream().filter(service -> service.getType() == ServiceType.SERVICE_TYPE_OSD
                    && osdUuids.contains(service.getUuid())
                    && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE).count();
            return mrcs == 1 && osdsAvailable == osdUuids.size() && mappedPort(cluster.uuid("mrc")) == cluster.port("mrc")
                    && allOsdsMapped();
        });
    }

    private boolean allOsdsMapped() throws Exception {
        for (String name : cluster.osdNames()) {
            if (mappedPort(cluster.uuid(name)) != cluster.port(name)) {
                return false;
            }
        }
        return true;
    }

    private <T> T inProcess(String name, Class<T> type) {
        return cluster.running(name).filter(InProcessRunner.InProcessServer.class::isInstance)
                .map(running -> type.cast(((InProcessRunner.InProcessServer) running).server()))
                .orElseThrow(() -> new IllegalStateException(name + " does not run in this JVM"));
    }

    DirServer dir() {
        return inProcess("dir", DirServer.class);
    }

    Path root() {
        return root;
    }

    /** The port the DIR currently maps a service UUID to (asked directly, no cache); 0 when unmapped. */
    int mappedPort(String uuid) throws Exception {
        return RpcClient.await(probe.addressMappingsGet(uuid)).getMappingsList().stream()
                .mapToInt(mapping -> mapping.getPort()).findFirst().orElse(0);
    }

    InetSocketAddress dirAddress() {
        return cluster.dirSocketAddress();
    }

    /** The DIR as a tool URL, without a volume: "pbrpc://127.0.0.1:PORT" (pbrpcs:// for a TLS DIR). */
    String dirUrl() {
        return cluster.dirUrl();
    }

    List<String> osdUuids() {
        return cluster.osdNames().stream().map(cluster::uuid).toList();
    }

    OsdServer osd(int index) {
        return inProcess(osdName(index), OsdServer.class);
    }

    /** A figure of an OSD's {@code /status.json} (e.g. storageReadsServed), fetched now; in-process or process. */
    long osdStatusNumber(int index, String key) throws java.io.IOException, InterruptedException {
        return statusNumber(osdName(index), key);
    }

    /** A figure of a server's {@code /status.json} ("mrc", "osd0", ...), fetched now; in-process or process. */
    long statusNumber(String name, String key) throws java.io.IOException, InterruptedException {
        boolean inProcess = cluster.running(name).filter(InProcessRunner.InProcessServer.class::isInstance).isPresent();
        int statusPort = inProcess ? (name.equals("mrc") ? mrc().statusPort()
                : osd(Integer.parseInt(name.substring(3))).addresses().status().getPort()) : cluster.status().stream()
                .filter(server -> server.name().equals(name)).mapToInt(LocalCluster.ServerStatus::statusPort)
                .findFirst().orElseThrow();
        String status = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + statusPort + "/status.json"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\"" + key + "\"\\s*:\\s*(\\d+)")
                .matcher(status);
        if (!matcher.find()) {
            throw new IllegalStateException(name + "'s status page has no figure " + key + ": " + status);
        }
        return Long.parseLong(matcher.group(1));
    }

    Path osdDataFolder(int index) {
        return cluster.dataFolder(osdName(index));
    }

    MrcServer mrc() {
        return inProcess("mrc", MrcServer.class);
    }

    /**
     * A client acting as {@code user} with a short metadata TTL and test-friendly timeouts (with TLS: presenting
     * the administrator's certificate).
     */
    Client client(ClientOptions.Builder options) {
        return Client.connect(dirAddress(), options.tls(cluster.clientTls()).requestTimeoutMs(15_000)
                .retryBackoffInitialMs(20)
                .retryBackoffMaxMs(500).build());
    }

    Client client() {
        return client(ClientOptions.builder());
    }

    /**
     * A client, returned once the MRC's reservation ledger lists every OSD of this cluster: it learns them from
     * the DIR, and admission against an OSD it does not know yet would be refused.
     */
    Client qosClient() {
        Client client = client();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> client.qosStatus().getOsdsCount() == osdUuids().size());
        return client;
    }

    static String hostPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /** SIGKILL to every server process of this cluster that still runs (in-process servers end with the JVM). */
    private void killServerProcesses() {
        for (LocalCluster.ServerStatus server : cluster.status()) {
            if (server.running() && server.pid() > 0 && server.pid() != ProcessHandle.current().pid()) {
                ProcessHandle.of(server.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    @Override
    public void close() {
        try {
            cluster.stop();
        } finally {
            OPEN.remove(this);
            probeRpc.close();
            deleteRecursively(root);
        }
    }

    private static void deleteRecursively(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // A left-over temporary folder is harmless.
        }
    }
}
