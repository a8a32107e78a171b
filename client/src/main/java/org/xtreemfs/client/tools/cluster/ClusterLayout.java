package org.xtreemfs.client.tools.cluster;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a cluster keeps things under its state folder, and the settings the launcher chooses for each server
 * before the description's own settings are applied on top:
 * <pre>
 *   STATE/cluster.properties   what runs: every server's settings, port, UUID and pid (written by the launcher)
 *   STATE/data/NAME/           a server's database or object folder
 *   STATE/log/NAME.log         its output (READY line, errors); earlier runs' logs as NAME.log.1, .2, ...
 *   STATE/mnt/                 mount points (make run); stop unmounts whatever is mounted below it
 *   STATE/tls/                 with TLS: the test CA (ca.pem, ca.key), each server's NAME.pem/NAME.key, the
 *                              administrator's client certificate admin.pem/admin.key, users' certificates
 * </pre>
 * Servers listen on loopback only and start on port 0, RPC and status page; the RPC port from their READY line
 * is then kept in the state, so a restart binds the same port (the status port too when the cluster keeps
 * status ports). The launcher never picks a "free" port itself: another process could take it before the server
 * binds it. A server on a host of its own (a network namespace, {@link NetworkHost})
 * binds every interface instead and registers the address its host advertises (no advertised address is set). Heartbeats are short so a (re)started server is registered and
 * visible to the MRC's placement within a second (a heartbeat period plus the MRC's OSD-list TTL, 100 ms here:
 * {@code mrc.placement.osdCacheTtlMs}; a create that found too few OSDs makes the MRC ask the DIR at once).
 * Why 100 ms and not the default 1 s: tools and tests read the MRC's view of an OSD (xtfsutil's "UNAVAILABLE")
 * right after the DIR shows it down; with 1 s, AdmissionTest.aStoppedOsdKeepsItsReservationsAtRiskAndResumesThem
 * failed (session 16's CI). The cost: a DIR call every 100 ms while creates come, 8-12 % of the MRC's samples in
 * loaded A/Bs, ~0.15 % quiet (tests/bench/fuse/README.md, session 16).
 */
final class ClusterLayout {
    static final String STATE_FILE = "cluster.properties";
    /** The MRC's and OSDs' capability secret (mode 0600), passed by path: see LocalCluster.writeSecretFile. */
    static final String SECRET_FILE = "capability.secret";
    static final String LOOPBACK = "127.0.0.1";
    static final String EVERY_INTERFACE = "0.0.0.0";
    /** The administrator's client certificate of a TLS cluster, used by the launcher and tools. */
    static final String ADMIN_CERTIFICATE = "admin";
    /** root (uid 0, gid 0), as an MRC taking identities from certificates reads it. */
    static final String ADMIN_SUBJECT = "/CN=root/UID=0/OU=0";
    static final long HEARTBEAT_PERIOD_MS = 500;
    static final long OSD_CACHE_TTL_MS = 100;

    private ClusterLayout() {}

    static Path dataFolder(Path state, String name) {
        return state.resolve("data").resolve(name);
    }

    static Path log(Path state, String name) {
        return state.resolve("log").resolve(name + ".log");
    }

    static Path tlsFolder(Path state) {
        return state.resolve("tls");
    }

    static Path mountFolder(Path state) {
        return state.resolve("mnt");
    }

    /** The setting that names the server's data folder (also what identifies its process). */
    static String dataKey(ServerKind kind) {
        return switch (kind) {
            case DIR -> "dir.database.path";
            case MRC -> "mrc.database.path";
            case OSD -> "osd.object.path";
        };
    }

    /**
     * The launcher's settings for one server; {@code dirAddress} is "scheme://host:port" (unused for the DIR);
     * {@code ownHost}: the server runs in a network namespace of its own ({@link NetworkHost}).
     */
    static Map<String, String> defaults(ServerKind kind, Path state, String name, String uuid, String dirAddress,
            String secretFile, boolean ownHost) {
        Map<String, String> settings = new HashMap<>();
        settings.put(kind.portKey(), "0");
        settings.put(kind.statusPortKey(), "0");
        settings.put(dataKey(kind), dataFolder(state, name).toString());
        // On a host of its own a server binds every interface and advertises what AdvertisedAddress finds there.
        settings.put(kind.shortName() + ".bindAddress", ownHost ? EVERY_INTERFACE : LOOPBACK);
        if (kind != ServerKind.DIR && !ownHost) {
            settings.put(kind.shortName() + ".advertisedAddress", LOOPBACK);
        }
        switch (kind) {
            case DIR -> { }
            case MRC -> {
                settings.put("mrc.uuid", uuid);
                settings.put("mrc.dir.address", dirAddress);
                settings.put("mrc.heartbeat.periodMs", Long.toString(HEARTBEAT_PERIOD_MS));
                settings.put("mrc.placement.osdCacheTtlMs", Long.toString(OSD_CACHE_TTL_MS));
                settings.put("capability.secretFile", secretFile);
            }
            case OSD -> {
                settings.put("osd.uuid", uuid);
                settings.put("osd.dir.address", dirAddress);
                settings.put("osd.heartbeat.periodMs", Long.toString(HEARTBEAT_PERIOD_MS));
                settings.put("osd.deletion.delayMs", "0");
                settings.put("capability.secretFile", secretFile);
            }
        }
        return settings;
    }
}
