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
import java.util.Properties;
import java.util.stream.Stream;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.dir.DirConfig;
import org.xtreemfs.dir.DirServer;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.mrc.MrcConfig;
import org.xtreemfs.mrc.MrcServer;
import org.xtreemfs.osd.OsdConfig;
import org.xtreemfs.osd.OsdServer;

/**
 * A DIR, an MRC and N OSDs in this JVM on loopback ports chosen at run time, with their data under one
 * temporary folder. The MRC and the OSDs can be stopped and restarted on the same data (new ports: clients
 * must find them again through the DIR). Heartbeats are fast so a restarted service is visible quickly.
 */
final class TestCluster implements AutoCloseable {
    static final String CAPABILITY_SECRET = "integration-test-secret";
    private static final long HEARTBEAT_PERIOD_MS = 300;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final Path root;
    private final int osdCount;
    /** One settings map per OSD, on top of the test defaults; its size is the number of OSDs. */
    private final List<Map<String, String>> perOsdOverrides;
    private final Map<String, String> mrcOverrides;
    private DirServer dir;
    private InetSocketAddress dirAddress;
    private MrcServer mrc;
    private final List<OsdServer> osds = new ArrayList<>();
    private final List<String> osdUuids = new ArrayList<>();
    private RpcClient probeRpc;
    private DirServiceClient probe;

    private TestCluster(Path root, List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides) {
        this.root = root;
        this.osdCount = perOsdOverrides.size();
        this.perOsdOverrides = List.copyOf(perOsdOverrides);
        this.mrcOverrides = mrcOverrides;
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

    /**
     * Starts a cluster with one OSD per settings map, each on top of the test defaults (e.g. typed OSDs:
     * Map.of("osd.usage.type", "sequential", "osd.device.class", "hdd")), and the MRC with these settings.
     */
    static TestCluster start(List<Map<String, String>> perOsdOverrides, Map<String, String> mrcOverrides)
            throws Exception {
        TestCluster cluster = new TestCluster(Files.createTempDirectory("xtreemfs-it-"), perOsdOverrides,
                mrcOverrides);
        try {
            cluster.startAll();
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void startAll() throws Exception {
        Properties dirProperties = new Properties();
        dirProperties.putAll(Map.of("dir.bindAddress", "127.0.0.1", "dir.port", "0", "dir.status.port", "0",
                "dir.database.path", root.resolve("dir").toString()));
        dir = new DirServer(DirConfig.from(dirProperties));
        dirAddress = dir.start().rpc();
        probeRpc = new RpcClient("test-cluster-probe");
        probe = new DirServiceClient(probeRpc, dirAddress, 5_000);
        for (int index = 0; index < osdCount; index++) {
            osds.add(null);
            osdUuids.add(null);
            startOsd(index);
        }
        startMrc();
        awaitServicesAvailable();
    }

    void startMrc() throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "mrc.bindAddress", "127.0.0.1",
                "mrc.port", "0",
                "mrc.status.port", "0",
                "mrc.database.path", root.resolve("mrc").toString(),
                "mrc.dir.address", hostPort(dirAddress),
                "mrc.heartbeat.periodMs", Long.toString(HEARTBEAT_PERIOD_MS),
                "mrc.placement.osdCacheTtlMs", "100",
                "capability.secret", CAPABILITY_SECRET));
        settings.putAll(mrcOverrides);
        mrc = new MrcServer(MrcConfig.of(settings));
        mrc.start();
    }

    void stopMrc() {
        mrc.close();
    }

    void startOsd(int index) throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "osd.bindAddress", "127.0.0.1",
                "osd.port", "0",
                "osd.status.port", "0",
                "osd.object.path", root.resolve("osd" + index).toString(),
                "osd.dir.address", hostPort(dirAddress),
                "osd.heartbeat.periodMs", Long.toString(HEARTBEAT_PERIOD_MS),
                "osd.deletion.delayMs", "0",
                "osd.storage.threads", "2",
                "capability.secret", CAPABILITY_SECRET));
        settings.putAll(perOsdOverrides.get(index));
        OsdServer osd = new OsdServer(OsdConfig.of(settings));
        osd.start();
        osds.set(index, osd);
        osdUuids.set(index, osd.uuid());
    }

    void stopOsd(int index) {
        osds.get(index).close();
    }

    /** Stops the MRC and every OSD, starts them again on the same data and waits until the DIR lists them. */
    void restartMrcAndOsds() throws Exception {
        stopMrc();
        for (int index = 0; index < osdCount; index++) {
            stopOsd(index);
        }
        for (int index = 0; index < osdCount; index++) {
            startOsd(index);
        }
        startMrc();
        awaitServicesAvailable();
    }

    /** Waits until the DIR lists the current MRC and every OSD as available at their current addresses. */
    void awaitServicesAvailable() {
        await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            List<Service> services = RpcClient.await(probe.serviceGetByType(ServiceType.SERVICE_TYPE_UNSPECIFIED,
                    false)).getServicesList();
            long mrcs = services.stream().filter(service -> service.getType() == ServiceType.SERVICE_TYPE_MRC
                    && service.getUuid().equals(mrc.uuid())
                    && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE).count();
            long osdsAvailable = services.stream().filter(service -> service.getType() == ServiceType.SERVICE_TYPE_OSD
                    && osdUuids.contains(service.getUuid())
                    && service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE).count();
            return mrcs == 1 && osdsAvailable == osdCount && mappedTo(mrc.uuid(), mrc.address())
                    && allOsdsMapped();
        });
    }

    private boolean allOsdsMapped() throws Exception {
        for (OsdServer osd : osds) {
            if (!mappedTo(osd.uuid(), osd.addresses().rpc())) {
                return false;
            }
        }
        return true;
    }

    private boolean mappedTo(String uuid, InetSocketAddress address) throws Exception {
        return RpcClient.await(probe.addressMappingsGet(uuid)).getMappingsList().stream()
                .anyMatch(mapping -> mapping.getPort() == address.getPort());
    }

    DirServer dir() {
        return dir;
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
        return dirAddress;
    }

    /** The DIR as a tool URL, without a volume: "pbrpc://127.0.0.1:PORT". */
    String dirUrl() {
        return "pbrpc://" + hostPort(dirAddress);
    }

    List<String> osdUuids() {
        return List.copyOf(osdUuids);
    }

    OsdServer osd(int index) {
        return osds.get(index);
    }

    Path osdDataFolder(int index) {
        return root.resolve("osd" + index);
    }

    MrcServer mrc() {
        return mrc;
    }

    /** A client acting as {@code user} with a short metadata TTL and test-friendly timeouts. */
    Client client(ClientOptions.Builder options) {
        return Client.connect(dirAddress, options.requestTimeoutMs(15_000).retryBackoffInitialMs(20)
                .retryBackoffMaxMs(500).build());
    }

    Client client() {
        return client(ClientOptions.builder());
    }

    static String hostPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    @Override
    public void close() {
        if (mrc != null) {
            mrc.close();
        }
        for (OsdServer osd : osds) {
            if (osd != null) {
                osd.close();
            }
        }
        if (probeRpc != null) {
            probeRpc.close();
        }
        if (dir != null) {
            dir.close();
        }
        deleteRecursively(root);
    }

    private static void deleteRecursively(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // A left-over temporary folder is harmless.
        }
    }
}
