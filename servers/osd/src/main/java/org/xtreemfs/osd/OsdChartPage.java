package org.xtreemfs.osd;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.xtreemfs.foundation.status.JsonWriter;
import org.xtreemfs.foundation.status.StatusPageServer;

/**
 * The live chart of reserved against achieved per volume, on the OSD's status server: the page
 * ({@value #PAGE_PATH}, a resource of this jar) polls {@value #HISTORY_PATH} (the accounting's kept windows,
 * {@code metrics.VolumeHistory}) every second and draws it with Apache ECharts, served from its WebJar at
 * {@value #LIBRARY_PATH}: nothing is fetched from outside the OSD, so the page works on an offline cluster.
 */
final class OsdChartPage {
    static final String PAGE_PATH = "/qos";
    static final String HISTORY_PATH = "/qos/history.json";
    static final String LIBRARY_PATH = "/qos/echarts.min.js";
    /** The WebJar names its version only in its Maven metadata; the script's path contains it. */
    private static final String WEBJAR_PROPERTIES = "META-INF/maven/org.webjars.npm/echarts/pom.properties";
    private static final String PAGE_RESOURCE = "org/xtreemfs/osd/qos-chart.html";

    private OsdChartPage() {}

    /** Adds the page, its data and its chart library to the status server; fails if the jar lacks either file. */
    static void route(StatusPageServer server, Supplier<Map<String, Object>> history) {
        byte[] page = StatusPageServer.classPathResource(PAGE_RESOURCE);
        byte[] library = StatusPageServer.classPathResource(
                "META-INF/resources/webjars/echarts/" + echartsVersion() + "/dist/echarts.min.js");
        server.route(PAGE_PATH, "text/html; charset=utf-8", () -> page)
                .route(LIBRARY_PATH, "text/javascript; charset=utf-8", () -> library)
                .route(HISTORY_PATH, "application/json; charset=utf-8",
                        () -> JsonWriter.write(history.get()).getBytes(StandardCharsets.UTF_8));
    }

    private static String echartsVersion() {
        Properties properties = new Properties();
        try {
            properties.load(new ByteArrayInputStream(StatusPageServer.classPathResource(WEBJAR_PROPERTIES)));
        } catch (IOException e) {
            throw new IllegalStateException("unreadable: " + WEBJAR_PROPERTIES + ": " + e.getMessage(), e);
        }
        String version = properties.getProperty("version");
        if (version == null || version.isBlank()) {
            throw new IllegalStateException(WEBJAR_PROPERTIES + " names no version");
        }
        return version;
    }
}
