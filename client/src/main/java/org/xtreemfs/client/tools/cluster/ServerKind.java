package org.xtreemfs.client.tools.cluster;

/**
 * The three kinds of server a cluster is made of, with the main class each runs and the prefix of its
 * settings. The setting names themselves are declared by each server's config (foundation.config); the
 * launcher only fills in the few it must choose per cluster (ports, folders, addresses, UUIDs).
 */
public enum ServerKind {
    DIR("dir", "org.xtreemfs.dir.DirMain"),
    MRC("mrc", "org.xtreemfs.mrc.MrcMain"),
    OSD("osd", "org.xtreemfs.osd.OsdMain");

    private final String shortName;
    private final String mainClass;

    ServerKind(String shortName, String mainClass) {
        this.shortName = shortName;
        this.mainClass = mainClass;
    }

    /** "dir", "mrc" or "osd": the word in READY lines, launcher names (bin/xtreemfs-osd) and settings. */
    public String shortName() {
        return shortName;
    }

    public String mainClass() {
        return mainClass;
    }

    /** The setting that holds the server's RPC port. */
    public String portKey() {
        return shortName + ".port";
    }

    public String statusPortKey() {
        return shortName + ".status.port";
    }

    static ServerKind parse(String text) {
        for (ServerKind kind : values()) {
            if (kind.shortName.equals(text)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown server kind '" + text + "' (dir, mrc or osd)");
    }
}
