package org.xtreemfs.foundation.launcher;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.config.HostPort;

/**
 * The one line a started server prints on stdout once it serves, and the only place that writes or reads it:
 * {@code READY <service> <rpc host:port> status <status host:port>}, e.g.
 * {@code READY osd 127.0.0.1:40123 status 127.0.0.1:40124}. Both are the bound addresses, so a server
 * configured with port 0 (for RPC or the status page) announces the port the kernel gave it: a launcher
 * reads the real ports here instead of choosing free ports beforehand, which another process could take
 * before the server binds them.
 *
 * <p>Invariant: {@link #parse} accepts exactly what {@link #line} writes, so a line cut short (a half-written
 * one) never parses as a shorter, wrong port: the status part is required, and {@link #find} only looks at
 * lines ended by a newline.
 */
public record ReadyAnnouncement(String service, HostPort rpc, HostPort status) {
    static final String PREFIX = "READY ";
    static final String STATUS_WORD = "status";

    public ReadyAnnouncement {
        if (service == null || service.isBlank() || service.contains(" ")) {
            throw new IllegalArgumentException("service '" + service + "' must be one non-empty word");
        }
        java.util.Objects.requireNonNull(rpc, "rpc");
        java.util.Objects.requireNonNull(status, "status");
    }

    /** The announcement of bound addresses (IP literals, IPv6 in brackets). */
    public static ReadyAnnouncement of(String service, InetSocketAddress rpc, InetSocketAddress status) {
        return new ReadyAnnouncement(service, hostPort(rpc), hostPort(status));
    }

    private static HostPort hostPort(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return new HostPort(host, address.getPort());
    }

    /** The line, without its line end. */
    public String line() {
        return PREFIX + service + " " + rpc + " " + STATUS_WORD + " " + status;
    }

    @Override
    public String toString() {
        return line();
    }

    /**
     * Reads one line: empty when it is no announcement (it does not start with {@code READY }).
     *
     * @throws IllegalArgumentException when it starts with {@code READY } but is not a whole announcement,
     *     naming the line
     */
    public static Optional<ReadyAnnouncement> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] words = line.strip().split(" ");
        if (words.length != 5 || !words[3].equals(STATUS_WORD)) {
            throw new IllegalArgumentException("'" + line + "' is not of the form READY SERVICE HOST:PORT status"
                    + " HOST:PORT");
        }
        try {
            return Optional.of(new ReadyAnnouncement(words[1], HostPort.parse(words[2]), HostPort.parse(words[4])));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + line + "': an address " + e.getMessage(), e);
        }
    }

    /**
     * The announcement of {@code service} in a server's output (its log, where other lines come and go), if it
     * printed one. Only whole lines count: {@code output}'s last line counts only if it ends with a newline,
     * so an announcement being written is found on a later look.
     *
     * @throws IllegalArgumentException when a whole line starting with {@code READY service } is malformed
     */
    public static Optional<ReadyAnnouncement> find(String service, String output) {
        List<String> lines = output.lines().toList();
        int whole = output.endsWith("\n") ? lines.size() : lines.size() - 1;
        for (String line : lines.subList(0, Math.max(0, whole))) {
            if (line.startsWith(PREFIX + service + " ")) {
                return parse(line);
            }
        }
        return Optional.empty();
    }
}
