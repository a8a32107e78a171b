package org.xtreemfs.client.tools.cluster;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a local cluster is made of: one DIR, one MRC and these OSDs, each server with settings on top of the
 * launcher's defaults. {@code statusPorts}: keep the status port each server bound and announced at its first
 * start (so status shows it and a restart binds it again) instead of a new one nobody learns at every start.
 * {@code tls}: whether the RPC ports speak TLS, with certificates from a test CA the launcher makes in the state
 * folder; {@code plainServers}: the servers (by name) whose ports stay plain in a TLS cluster (a mixed cluster:
 * they trust the CA for their calls to the TLS servers, and every server registers the scheme it speaks).
 * {@code hosts}: each server's own network namespace and address ({@link NetworkHost}) by server name, for every server or for none (empty: every server on
 * the launcher's loopback); a server on loopback could not reach a DIR in another namespace, nor be reached there.
 */
public record ClusterDescription(List<OsdDescription> osds, Map<String, String> dirSettings,
        Map<String, String> mrcSettings, boolean statusPorts, Tls tls, Map<String, NetworkHost> hosts,
        Set<String> plainServers) {

    /** TLS across the cluster. */
    public enum Tls {
        /** Plain TCP everywhere. */
        OFF,
        /** Every RPC port speaks TLS only; clients need the CA. */
        ON,
        /** As ON, and every server requires a client certificate signed by the CA. */
        CLIENT_CERTIFICATES;

        public boolean enabled() {
            return this != OFF;
        }
    }

    public ClusterDescription {
        osds = List.copyOf(osds);
        dirSettings = Map.copyOf(dirSettings);
        mrcSettings = Map.copyOf(mrcSettings);
        Objects.requireNonNull(tls, "tls");
        Set<String> names = new HashSet<>();
        for (OsdDescription osd : osds) {
            if (!names.add(osd.name())) {
                throw new IllegalArgumentException("two OSDs are named '" + osd.name() + "'");
            }
        }
        hosts = Map.copyOf(hosts);
        plainServers = Set.copyOf(plainServers);
        names.addAll(List.of("dir", "mrc"));
        for (String name : plainServers) {
            if (!names.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is to stay plain but is no server of the cluster ("
                        + String.join(", ", new java.util.TreeSet<>(names)) + ")");
            }
        }
        if (!plainServers.isEmpty() && !tls.enabled()) {
            throw new IllegalArgumentException("plain servers (" + String.join(", ", new java.util.TreeSet<>(
                    plainServers)) + ") are given, but the cluster has no TLS: every server is plain already");
        }
        if (!plainServers.isEmpty() && tls == Tls.CLIENT_CERTIFICATES) {
            throw new IllegalArgumentException("plain servers have no certificate to present to TLS servers that"
                    + " require client certificates; use TLS without client certificates for a mixed cluster");
        }
        for (String name : hosts.keySet()) {
            if (!names.contains(name)) {
                throw new IllegalArgumentException("a network host is given for '" + name + "', which is no server of"
                        + " the cluster (" + String.join(", ", new java.util.TreeSet<>(names)) + ")");
            }
        }
        if (!hosts.isEmpty() && hosts.size() != names.size()) {
            Set<String> missing = new java.util.TreeSet<>(names);
            missing.removeAll(hosts.keySet());
            throw new IllegalArgumentException("network hosts are given for some servers but not for "
                    + String.join(", ", missing) + ": give every server one or none");
        }
    }

    /** Every server of the cluster speaks TLS when {@code tls} is on. */
    public ClusterDescription(List<OsdDescription> osds, Map<String, String> dirSettings,
            Map<String, String> mrcSettings, boolean statusPorts, Tls tls, Map<String, NetworkHost> hosts) {
        this(osds, dirSettings, mrcSettings, statusPorts, tls, hosts, Set.of());
    }

    /** Whether server {@code name}'s RPC port speaks TLS. */
    public boolean tlsPort(String name) {
        return tls.enabled() && !plainServers.contains(name);
    }

    /** A cluster on the launcher's loopback. */
    public ClusterDescription(List<OsdDescription> osds, Map<String, String> dirSettings,
            Map<String, String> mrcSettings, boolean statusPorts, Tls tls) {
        this(osds, dirSettings, mrcSettings, statusPorts, tls, Map.of());
    }

    /** A cluster without TLS. */
    public ClusterDescription(List<OsdDescription> osds, Map<String, String> dirSettings,
            Map<String, String> mrcSettings, boolean statusPorts) {
        this(osds, dirSettings, mrcSettings, statusPorts, Tls.OFF, Map.of());
    }
}
