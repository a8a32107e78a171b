package org.xtreemfs.foundation.status;

import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

/**
 * The limits of one server's status port ({@link StatusPageServer.Limits}), declared once under the service's key
 * prefix: {@code dir.status.connectionsMax}, {@code mrc.status.requestTimeoutMs}, ... Add {@link #schema()} to the
 * service schema and build the limits with {@link #limits}.
 */
public final class StatusPageSettings {
    private final Setting<Integer> connectionsMax;
    private final Setting<Long> requestTimeoutMs;
    private final Setting<Long> responseTimeoutMs;

    /** @param keyPrefix the service prefix, e.g. {@code osd} */
    public StatusPageSettings(String keyPrefix) {
        StatusPageServer.Limits defaults = StatusPageServer.Limits.DEFAULT;
        connectionsMax = Setting.integer(keyPrefix + ".status.connectionsMax", defaults.connectionsMax(), 1, 100_000,
                "Open connections the status port holds at once; one more is answered 503 and closed.");
        requestTimeoutMs = Setting.longInteger(keyPrefix + ".status.requestTimeoutMs", defaults.requestTimeoutMs(),
                1, 3_600_000, "A status request must arrive whole within this long of the connection being ready"
                        + " for it (opened, or its previous answer written); past it the connection is closed.");
        responseTimeoutMs = Setting.longInteger(keyPrefix + ".status.responseTimeoutMs",
                defaults.responseTimeoutMs(), 1, 3_600_000,
                "Writing one status answer may take this long; past it (a client that does not read) the"
                        + " connection is closed.");
    }

    public SettingsSchema schema() {
        return SettingsSchema.of("status", connectionsMax, requestTimeoutMs, responseTimeoutMs);
    }

    /** From settings validated by a schema that includes {@link #schema()}. */
    public StatusPageServer.Limits limits(Settings settings) {
        return new StatusPageServer.Limits(settings.get(connectionsMax), settings.get(requestTimeoutMs),
                settings.get(responseTimeoutMs));
    }
}
