package org.xtreemfs.foundation.rpc;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The one rule for the address a server registers at the DIR for others to dial: the configured advertised
 * address if set; else the bind address if it names one; else, for a server bound to every interface (0.0.0.0 or
 * ::), an IPv4 address of this host that other hosts can reach: the first non-loopback, non-link-local address of
 * an interface that is up, in interface index order, and 127.0.0.1 only on a host that has no other. (The host
 * name is not used: Debian maps it to 127.0.1.1, which no other host can dial.)
 */
public final class AdvertisedAddress {
    private AdvertisedAddress() {}

    public static String of(String configured, String bindAddress) {
        if (!configured.isEmpty()) {
            return configured;
        }
        if (!isWildcard(bindAddress)) {
            return bindAddress;
        }
        return reachableAddress().orElse("127.0.0.1");
    }

    static boolean isWildcard(String bindAddress) {
        return bindAddress.equals("0.0.0.0") || bindAddress.equals("::") || bindAddress.equals("[::]");
    }

    /** This host's first address that other hosts can reach, if it has one. */
    static Optional<String> reachableAddress() {
        try {
            List<NetworkInterface> interfaces = NetworkInterface.networkInterfaces()
                    .sorted(Comparator.comparingInt(NetworkInterface::getIndex)).toList();
            for (NetworkInterface networkInterface : interfaces) {
                if (!networkInterface.isUp() || networkInterface.isLoopback()) {
                    continue;
                }
                Optional<String> address = networkInterface.inetAddresses()
                        .filter(candidate -> candidate instanceof Inet4Address)
                        .filter(candidate -> !candidate.isLoopbackAddress() && !candidate.isLinkLocalAddress())
                        .map(InetAddress::getHostAddress).findFirst();
                if (address.isPresent()) {
                    return address;
                }
            }
        } catch (SocketException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
