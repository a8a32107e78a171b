package org.xtreemfs.osd;

import java.util.Map;

/** Renders the status map as the plain-text page at {@code GET /} (the JSON is at /status.json). */
final class OsdStatus {
    private OsdStatus() {}

    static String page(Map<String, Object> status) {
        StringBuilder page = new StringBuilder("XtreemFS OSD status (JSON: /status.json)\n\n");
        status.forEach((key, value) -> page.append(String.format("%-22s %s%n", key, value)));
        return page.toString();
    }
}
