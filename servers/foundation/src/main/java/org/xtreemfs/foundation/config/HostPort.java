package org.xtreemfs.foundation.config;

import java.net.InetSocketAddress;

/** A host name or IP literal plus a TCP port; IPv6 literals are written in brackets. */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is out of range 0..65535");
        }
    }

    /**
     * Parses {@code host:port} or {@code [ipv6]:port}.
     *
     * @throws IllegalArgumentException naming the problem in the text
     */
    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("is not of the form host:port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("has an IPv6 host that is not in brackets");
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("has a port that is not a number");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("has a port out of range 0..65535");
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("has an empty host");
        }
        return new HostPort(host, port);
    }

    /** An unresolved address: resolution happens when connecting, so DNS changes are seen. */
    public InetSocketAddress toUnresolvedAddress() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
