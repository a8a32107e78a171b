package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.MkfsMain;

/**
 * The OSD's live chart (/qos) in a real browser: headless Chromium opens the page of an emulated-HDD sequential
 * OSD while the Java client writes to a reserved volume placed there, and the test reads the open page through
 * the DevTools protocol. It passes only if the page drew, with ECharts' SVG renderer, a chart for that volume
 * whose achieved series has several non-zero 1-s windows (in the chart's data and as vertices of the drawn SVG
 * line), whose reserved line is the admitted reservation, and which keeps growing while the page stays open
 * (the page polls; a page that drew once would fail).
 */
class QosChartPageTest {
    private static final String RESERVED_THROUGHPUT = "2MiB/s";
    private static final double RESERVED_MIB_PER_SECOND = 2.0;
    private static final int OBJECT_BYTES = 128 * 1024;
    /** The written file's size: writes go round it, so the test's disk use stays small. */
    private static final int FILE_OBJECTS = 16;
    /** Bounds the writer whatever happens to the test (at the pace below, far more than the test needs). */
    private static final int WRITES_MAX = 20_000;
    /** Pause between writes: about 12 MiB/s at most, a steady load that leaves the 2 cores to the browser. */
    private static final long WRITE_PAUSE_MS = 10;
    /** Windows with achieved > 0 the chart must show; the writer fills one per second. */
    private static final int NON_ZERO_WINDOWS_MIN = 4;
    /** The achieved line's colour in the page (qos-chart.html, COLORS.achieved): finds its SVG path. */
    private static final String ACHIEVED_COLOR = "#1565c0";

    @Test
    void theChartDrawsReservedAgainstAchievedLiveWhileAVolumeWrites() throws Exception {
        try (TestCluster cluster = TestCluster.start(
                List.of(Map.of("osd.usage.type", "sequential", "osd.device.emulation", "hdd7200")), Map.of());
                Client client = cluster.client()) {
            ToolRun made = ToolRun.of(new MkfsMain(), "--qos", "sequential", "--capacity", "1GiB", "--throughput",
                    RESERVED_THROUGHPUT, cluster.dirUrl() + "/charted");
            assertThat(made.exitCode()).as(made.err()).isZero();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> volumeId = new AtomicReference<>();
            ExecutorService writer = Executors.newSingleThreadExecutor();
            try {
                Future<Integer> writes = writer.submit(() -> write(client, volumeId, stop));
                await().atMost(Duration.ofSeconds(20)).until(() -> volumeId.get() != null || writes.isDone());
                assertThat(volumeId.get()).as("the writer opened the file").isNotNull();
                String url = "http://127.0.0.1:" + cluster.osd(0).addresses().status().getPort() + "/qos";
                try (HeadlessChromium browser = new HeadlessChromium(url)) {
                    try {
                        String expression = summaryOf(volumeId.get());
                        AtomicReference<Map<String, String>> drawn = new AtomicReference<>(Map.of());
                        await().atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(500))
                                .failFast("the writer stopped", writes::isDone)
                                .untilAsserted(() -> {
                                    drawn.set(parse(browser.evaluate(expression)));
                                    assertThat(drawn.get()).as("chart of volume %s", volumeId.get())
                                            .containsEntry("chart", "yes");
                                    assertThat(number(drawn.get(), "nonZero"))
                                            .isGreaterThanOrEqualTo(NON_ZERO_WINDOWS_MIN);
                                    assertThat(number(drawn.get(), "svgVertices"))
                                            .isGreaterThanOrEqualTo(number(drawn.get(), "points"));
                                });
                        assertThat(number(drawn.get(), "svgCharts")).as("one SVG chart, the library's").isOne();
                        assertThat(number(drawn.get(), "reservedMiBps")).isEqualTo(RESERVED_MIB_PER_SECOND);
                        assertThat(number(drawn.get(), "thresholdMiBps")).isEqualTo(RESERVED_MIB_PER_SECOND * 0.9);
                        assertThat(number(drawn.get(), "maxAchievedMiBps")).isPositive();

                        // The same open page, two windows later: it polled and redrew with the new windows.
                        double newestMs = number(drawn.get(), "newestMs");
                        double nonZero = number(drawn.get(), "nonZero");
                        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500))
                                .failFast("the writer stopped", writes::isDone)
                                .untilAsserted(() -> {
                                    Map<String, String> later = parse(browser.evaluate(expression));
                                    assertThat(number(later, "newestMs")).isGreaterThanOrEqualTo(newestMs + 2000);
                                    assertThat(number(later, "nonZero")).isGreaterThan(nonZero);
                                });
                    } finally {
                        saveScreenshot(browser);
                    }
                }
            } finally {
                stop.set(true);
                writer.shutdown();
                assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).as("the writer stopped").isTrue();
            }
        }
    }

    /** Leaves what the page showed at the end in the build folder, to look at (a failure's message names it). */
    private static void saveScreenshot(HeadlessChromium browser) {
        Path file = Path.of("target" + System.getProperty("xtreemfs.build.suffix", ""), "qos-chart.png");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, browser.screenshot());
            System.out.println("the chart page as the browser showed it: " + file.toAbsolutePath());
        } catch (Exception e) {
            System.out.println("no screenshot of the chart page: " + e);
        }
    }

    /** Overwrites the file's objects round and round until told to stop; returns the number of writes. */
    private static int write(Client client, AtomicReference<String> volumeId, AtomicBoolean stop) throws Exception {
        byte[] object = new byte[OBJECT_BYTES];
        try (FileHandle file = client.openVolume("charted").open("/load", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                0644)) {
            volumeId.set(file.credentials().getXcap().getVolumeId());
            int writes = 0;
            while (!stop.get() && writes < WRITES_MAX) {
                object[0] = (byte) writes;
                file.write((long) (writes % FILE_OBJECTS) * OBJECT_BYTES, object);
                writes++;
                Thread.sleep(WRITE_PAUSE_MS);
            }
            return writes;
        }
    }

    /**
     * JavaScript that describes the volume's chart as "key=value;..." (no quotes, so the DevTools reply needs no
     * JSON parser): from the chart library's own model (points of the achieved series, how many are non-zero,
     * the newest window's time, the reserved and 90 % lines) and from the drawn DOM (SVG elements in the box, the
     * most vertices of a path in the achieved colour).
     */
    private static String summaryOf(String volumeId) {
        return """
                (() => {
                  const box = document.querySelector('[data-volume-id="%s"]');
                  if (!box || typeof echarts === 'undefined') return 'chart=no';
                  const chart = echarts.getInstanceByDom(box.querySelector('.chart'));
                  if (!chart) return 'chart=no';
                  const series = chart.getOption().series;
                  const named = name => (series.find(s => s.name === name) || { data: [[0, -1]] }).data;
                  const achieved = named('achieved');
                  const paths = [...box.querySelectorAll('svg path')]
                      .filter(path => (path.getAttribute('stroke') || '').toLowerCase() === '%s');
                  const vertices = paths.map(path => (path.getAttribute('d').match(/[ML]/g) || []).length);
                  return [
                    'chart=yes',
                    'svgCharts=' + box.querySelectorAll('svg').length,
                    'points=' + achieved.length,
                    'nonZero=' + achieved.filter(point => point[1] > 0).length,
                    'maxAchievedMiBps=' + Math.max(0, ...achieved.map(point => point[1])),
                    'newestMs=' + (achieved.length ? achieved[achieved.length - 1][0] : 0),
                    'reservedMiBps=' + named('reserved')[0][1],
                    'thresholdMiBps=' + named('90 %% of reserved')[0][1],
                    'svgVertices=' + Math.max(0, ...vertices),
                  ].join(';');
                })()
                """.formatted(volumeId, ACHIEVED_COLOR);
    }

    private static Map<String, String> parse(String summary) {
        Map<String, String> fields = new HashMap<>();
        for (String field : summary.split(";")) {
            String[] keyValue = field.split("=", 2);
            fields.put(keyValue[0], keyValue.length > 1 ? keyValue[1] : "");
        }
        return fields;
    }

    private static double number(Map<String, String> fields, String key) {
        assertThat(fields).as("page summary").containsKey(key);
        return Double.parseDouble(fields.get(key));
    }
}
