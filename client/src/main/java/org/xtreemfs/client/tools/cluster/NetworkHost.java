package org.xtreemfs.client.tools.cluster;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A host of its own for one server of a local cluster: a Linux network namespace (as {@code ip netns add NAME}
 * makes it, {@code /run/netns/NAME}) holding an interface with {@code address}. The server runs in that namespace
 * (nsenter --net), binds every interface (0.0.0.0) and registers at the DIR whatever address its host advertises
 * (foundation AdvertisedAddress: the launcher sets no advertised address), and the launcher and the other servers
 * reach it at {@code address}. This is how one machine plays several hosts (tests/system/multihost_e2e.sh).
 */
public record NetworkHost(String networkNamespace, String address) {
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    /** Where {@code ip netns add} puts a named namespace. */
    static final Path NAMESPACES = Path.of("/run/netns");

    public NetworkHost {
        if (!NAMESPACE.matcher(networkNamespace).matches()) {
            throw new IllegalArgumentException("bad network namespace name '" + networkNamespace
                    + "': 1-64 of A-Z, a-z, 0-9, '_', '.' and '-'");
        }
        if (!IPV4.matcher(address).matches()) {
            throw new IllegalArgumentException("bad address '" + address + "' of network namespace "
                    + networkNamespace + ": an IPv4 address is needed, e.g. 10.77.0.1");
        }
    }

    /** Parses {@code NAMESPACE@ADDRESS}. */
    public static NetworkHost parse(String text) {
        int at = text.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("a network host is NAMESPACE@ADDRESS (e.g. xt-dir@10.77.0.1), not '"
                    + text + "'");
        }
        return new NetworkHost(text.substring(0, at), text.substring(at + 1));
    }

    /** The namespace's file, which nsenter --net enters. */
    Path namespaceFile() {
        return NAMESPACES.resolve(networkNamespace);
    }

    @Override
    public String toString() {
        return networkNamespace + "@" + address;
    }
}
