package org.xtreemfs.osd;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the status map as the HTML page at {@code GET /} (the JSON is at /status.json, the Prometheus
 * metrics at /metrics): one row per counter, and the per-volume QoS figures ({@code qosVolumes}) as a table.
 */
final class OsdStatus {
    static final String VOLUMES_KEY = "qosVolumes";

    /** The columns of the volume table: status key, heading. */
    private static final List<Map.Entry<String, String>> VOLUME_COLUMNS = List.of(
            Map.entry("volumeId", "volume"),
            Map.entry("costUnit", "cost unit"),
            Map.entry("reservedCostPerSecond", "reserved /s"),
            Map.entry("achievedCostPerSecond", "achieved /s (last 1-s window)"),
            Map.entry("achievedBytesPerSecond", "achieved bytes/s"),
            Map.entry("achievedRequestsPerSecond", "achieved requests/s"),
            Map.entry("queueDepthRequests", "queued"),
            Map.entry("latencyP50Ms", "latency p50 ms"),
            Map.entry("latencyP99Ms", "latency p99 ms"),
            Map.entry("windowsWithDemand", "windows with demand"),
            Map.entry("windowsMet", "windows met (>= 90 %)"),
            Map.entry("attainment", "attainment"));

    private OsdStatus() {}

    static String page(Map<String, Object> status) {
        StringBuilder page = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                + "<title>XtreemFS OSD status</title></head><body>\n<h1>XtreemFS OSD status</h1>\n"
                + "<p>JSON: <a href=\"/status.json\">/status.json</a>, Prometheus: <a href=\"/metrics\">/metrics</a>, "
                + "live chart of reserved against achieved per volume: <a href=\"" + OsdChartPage.PAGE_PATH + "\">"
                + OsdChartPage.PAGE_PATH + "</a></p>\n<table>\n");
        status.forEach((key, value) -> {
            if (!VOLUMES_KEY.equals(key)) {
                page.append("<tr><th align=\"left\">").append(escape(key)).append("</th><td>")
                        .append(escape(String.valueOf(value))).append("</td></tr>\n");
            }
        });
        page.append("</table>\n<h2>Volumes (QoS accounting)</h2>\n<table border=\"1\">\n<tr>");
        VOLUME_COLUMNS.forEach(column -> page.append("<th>").append(escape(column.getValue())).append("</th>"));
        page.append("</tr>\n");
        if (status.get(VOLUMES_KEY) instanceof List<?> volumes) {
            for (Object volume : volumes) {
                if (volume instanceof Map<?, ?> row) {
                    page.append("<tr>");
                    VOLUME_COLUMNS.forEach(column -> page.append("<td>")
                            .append(escape(format(row.get(column.getKey())))).append("</td>"));
                    page.append("</tr>\n");
                }
            }
        }
        return page.append("</table>\n</body></html>\n").toString();
    }

    private static String format(Object value) {
        if (value instanceof Double number) {
            return number.isNaN() ? "-" : String.format(Locale.ROOT, "%.2f", number);
        }
        return String.valueOf(value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
