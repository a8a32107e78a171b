package org.xtreemfs.osd;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Settings of an OSD on loopback with ephemeral ports, for tests. */
final class TestOsdConfigs {
    private TestOsdConfigs() {}

    /** Loopback, ports 0, the given data folder, DIR and secret; {@code extra} overrides any of them. */
    static Map<String, String> loopback(Path dataFolder, String dirHostPort, String uuid, String secret,
            Map<String, String> extra) {
        Map<String, String> values = new HashMap<>();
        values.put("osd.uuid", uuid);
        values.put("osd.bindAddress", "127.0.0.1");
        values.put("osd.port", "0");
        values.put("osd.status.port", "0");
        values.put("osd.object.path", dataFolder.toString());
        values.put("osd.dir.address", dirHostPort);
        values.put("capability.secret", secret);
        values.putAll(extra);
        return values;
    }
}
