package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.wfq.ShareRule;

/**
 * An in-process sequential OSD on a manual clock: a reserved volume ("gold", 1 MiB/s share in its capability)
 * and a best-effort one write in the first 1-s window; after the clock passes the window's end, the status
 * JSON and the Prometheus text at /metrics show each volume's reservation, what it achieved in that window and
 * the reserved volume's attainment. The manual clock makes the window's content exact (no request straddles
 * a window boundary), so the figures are asserted to the byte.
 */
class OsdVolumeMetricsTest {
    private static final String SECRET = "osd-volume-metrics-test-secret";
    private static final String UUID = "osd-metrics";
    private static final int WRITE_BYTES = 128 * 1024;
    /** What this OSD (the built-in HDD profile, sequential) charges a request that does not continue its file. */
    private static final long POSITIONING_BYTES = ShareRule.bytesPerRandomIo(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
    private static final long RESERVATION_BYTES_PER_SECOND = 1 << 20;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();
    /** One Prometheus sample line: name{labels} value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-z0-9_]+)\\{([^}]*)} (\\S+)$", Pattern.MULTILINE);

    @TempDir
    Path dataFolder;

    private final ManualClock clock = new ManualClock(System.currentTimeMillis());
    private FakeDir dir;
    private OsdServer server;
    private OsdServer.Addresses addresses;
    private RpcClient rpcClient;

    @BeforeEach
    void start() throws Exception {
        dir = new FakeDir();
        server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(dataFolder, dir.hostPort(), UUID, SECRET,
                Map.of("osd.usage.type", "sequential", "osd.qos.policy", "fair", "osd.heartbeat.periodMs", "60000"))),
                clock);
        addresses = server.start();
        rpcClient = new RpcClient("osd-volume-metrics-test");
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        server.close();
        dir.close();
    }

    @Test
    void aReservedVolumesAchievedFigureAndAttainmentAppearInTheStatusJsonAndInMetrics() throws Exception {
        OsdServiceClient osd = new OsdServiceClient(rpcClient, 10_000);
        // Window [0 s, 1 s) of the clock's monotonic time: 8 writes of gold (1 MiB), 3 of bronze.
        write(osd, credentials("gold", RESERVATION_BYTES_PER_SECOND), 8);
        write(osd, credentials("bronze", 0), 3);
        // The reply reaches the client before the storage thread reports the request answered to the QoS
        // stage: wait for the last report, so that every write is accounted in window 0.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.qos().inFlight() == 0);
        clock.advance(Duration.ofMillis(1_001));

        String json = get("/status.json");
        assertThat(json).contains("\"qosAttainedFraction\":0.9");
        // Cost is bytes plus one positioning for each file's first request (nothing before it to continue):
        // gold's eight writes follow each other, so its cost is 1 MiB and one positioning.
        double goldCost = 1048576.0 + POSITIONING_BYTES;
        assertThat(json).contains("{\"volumeId\":\"gold\",\"costUnit\":\"bytes\",\"reservedCostPerSecond\":1048576,"
                + "\"reservedMiBPerSecond\":1.0,\"achievedCostPerSecond\":" + goldCost + ","
                + "\"achievedBytesPerSecond\":1048576.0,\"achievedRequestsPerSecond\":8.0,"
                + "\"queueDepthRequests\":0,\"outstandingRequests\":0,");
        // Nothing waited (one write at a time), so the window met the reservation: attainment 1 of 1.
        assertThat(json).containsPattern("\"volumeId\":\"gold\".*\"latencySamples\":8,\"windowsWithDemand\":1,"
                + "\"windowsMet\":1,\"attainment\":1.0,\"windowsWithDemandTotal\":1,\"windowsMetTotal\":1,"
                + "\"recentAchievedCostPerSecond\":\\[" + goldCost + "]");
        assertThat(json).contains("{\"volumeId\":\"bronze\",\"costUnit\":\"bytes\",\"reservedCostPerSecond\":0,");
        assertThat(json).containsPattern("\"volumeId\":\"bronze\".*\"achievedRequestsPerSecond\":3.0,.*"
                + "\"windowsWithDemand\":0,\"windowsMet\":0,\"attainment\":null");

        Map<String, Double> metrics = samples(get("/metrics"));
        assertThat(metrics).containsEntry(
                "xtreemfs_osd_volume_reserved_cost_per_second{cost_unit=\"bytes\",volume=\"gold\"}", 1048576.0);
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_achieved_bytes_per_second{volume=\"gold\"}",
                1048576.0);
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_achieved_bytes_per_second{volume=\"bronze\"}",
                3.0 * WRITE_BYTES);
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_achieved_requests_per_second{volume=\"gold\"}", 8.0);
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_attainment_ratio{volume=\"gold\"}", 1.0);
        assertThat(metrics).as("no attainment without a reservation")
                .doesNotContainKey("xtreemfs_osd_volume_attainment_ratio{volume=\"bronze\"}");
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_windows_met_total{volume=\"gold\"}", 1.0);
        assertThat(metrics).containsEntry("xtreemfs_osd_volume_queue_depth_requests{volume=\"gold\"}", 0.0);
        assertThat(metrics.get("xtreemfs_osd_volume_latency_p99_seconds{volume=\"gold\"}")).isNotNull();

        // The next window has no demand: achieved drops to 0, the attainment over windows with demand stays 1.
        clock.advance(Duration.ofSeconds(1));
        Map<String, Double> later = samples(get("/metrics"));
        assertThat(later).containsEntry("xtreemfs_osd_volume_achieved_bytes_per_second{volume=\"gold\"}", 0.0);
        assertThat(later).containsEntry("xtreemfs_osd_volume_attainment_ratio{volume=\"gold\"}", 1.0);
        assertThat(get("/")).contains("<td>gold</td>");
    }

    private void write(OsdServiceClient osd, FileCredentials credentials, int count) throws Exception {
        for (int object = 0; object < count; object++) {
            WriteRequest request = WriteRequest.newBuilder().setCredentials(credentials)
                    .setFileId(credentials.getXcap().getFileId()).setObjectNumber(object).setOffset(0).build();
            RpcClient.await(osd.write(addresses.rpc(), USER, request,
                    Unpooled.wrappedBuffer(new byte[WRITE_BYTES])));
        }
    }

    private String get(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + addresses.status().getPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET " + path).isEqualTo(200);
        return response.body();
    }

    /** Every labelled sample of a Prometheus text page, keyed by name{labels} as written. */
    private static Map<String, Double> samples(String text) {
        Map<String, Double> samples = new HashMap<>();
        Matcher sample = SAMPLE.matcher(text);
        while (sample.find()) {
            samples.put(sample.group(1) + "{" + sample.group(2) + "}", Double.parseDouble(sample.group(3)));
        }
        return samples;
    }

    private FileCredentials credentials(String volume, long reservationBytesPerSecond) {
        return TestCapabilities.readWrite(SECRET, UUID, volume, 1, reservationBytesPerSecond, WRITE_BYTES);
    }
}
