package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The administrative POSTs on the status port: /device/speed (the capacity-drop knob of the QoS benchmark) and
 * /qos/policy (the overhead benchmark's switch between policies).
 */
class OsdDeviceSpeedTest {
    private static final String SECRET = "osd-device-speed-test-secret";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dataFolder;

    private FakeDir dir;
    private OsdServer server;

    private InetSocketAddress start(Map<String, String> settings) throws Exception {
        dir = new FakeDir();
        server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(dataFolder, dir.hostPort(), "osd-speed", SECRET,
                settings)));
        return server.start().status();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (dir != null) {
            dir.close();
        }
    }

    private HttpResponse<String> send(InetSocketAddress status, String path, String postBody) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + status.getPort() + path))
                .timeout(Duration.ofSeconds(5));
        if (postBody != null) {
            request.POST(HttpRequest.BodyPublishers.ofString(postBody));
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anEmulatedDeviceSlowsDownOnRequestAndTheStatusShowsIt() throws Exception {
        // Proves the knob reaches the emulated device (status.json reports the fraction) and bad values are
        // refused with the value named, leaving the speed unchanged.
        InetSocketAddress status = start(Map.of("osd.usage.type", "sequential", "osd.device.emulation", "hdd7200"));
        assertThat(send(status, "/status.json", null).body()).contains("\"deviceSpeedFraction\":1.0");

        HttpResponse<String> slowed = send(status, OsdServer.DEVICE_SPEED_PATH, "0.6667");
        assertThat(slowed.statusCode()).isEqualTo(200);
        assertThat(slowed.body()).contains("0.6667");
        assertThat(send(status, "/status.json", null).body()).contains("\"deviceSpeedFraction\":0.6667");

        HttpResponse<String> notANumber = send(status, OsdServer.DEVICE_SPEED_PATH, "fast");
        assertThat(notANumber.statusCode()).isEqualTo(400);
        assertThat(notANumber.body()).contains("'fast'");
        HttpResponse<String> tooFast = send(status, OsdServer.DEVICE_SPEED_PATH, "1.5");
        assertThat(tooFast.statusCode()).isEqualTo(400);
        assertThat(tooFast.body()).contains("1.5");
        assertThat(send(status, "/status.json", null).body()).contains("\"deviceSpeedFraction\":0.6667");
    }

    @Test
    void theRealDiskHasNoSpeedToChange() throws Exception {
        InetSocketAddress status = start(Map.of("osd.usage.type", "random", "osd.device.class", "ssd"));
        HttpResponse<String> refused = send(status, OsdServer.DEVICE_SPEED_PATH, "0.5");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("emulates no device");
    }

    @Test
    void thePolicySwitchesOnRequestTheStatusShowsItAndBadValuesAreRefusedNamingThem() throws Exception {
        // Proves the switch reaches the QoS stage (status.json's qosPolicy follows it, whatever osd.qos.policy
        // said at start) and anything but fair or fifo is a 400 naming the value, leaving the policy unchanged.
        InetSocketAddress status = start(Map.of("osd.qos.policy", "fifo"));
        assertThat(send(status, "/status.json", null).body()).contains("\"qosPolicy\":\"FIFO\"");

        HttpResponse<String> fair = send(status, OsdServer.QOS_POLICY_PATH, "fair");
        assertThat(fair.statusCode()).isEqualTo(200);
        assertThat(fair.body()).contains("qos policy fair");
        assertThat(send(status, "/status.json", null).body()).contains("\"qosPolicy\":\"FAIR\"");

        HttpResponse<String> wrong = send(status, OsdServer.QOS_POLICY_PATH, "lottery");
        assertThat(wrong.statusCode()).isEqualTo(400);
        assertThat(wrong.body()).contains("'lottery'");
        assertThat(send(status, "/status.json", null).body()).contains("\"qosPolicy\":\"FAIR\"");

        assertThat(send(status, OsdServer.QOS_POLICY_PATH, "fifo\n").statusCode()).isEqualTo(200);
        assertThat(send(status, "/status.json", null).body()).contains("\"qosPolicy\":\"FIFO\"");
    }
}
