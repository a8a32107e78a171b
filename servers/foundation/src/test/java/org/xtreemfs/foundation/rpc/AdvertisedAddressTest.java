package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.NetworkInterface;
import org.junit.jupiter.api.Test;

/** What a server registers for others to dial (issue 13: the MRC registered 127.0.0.1 when bound to 0.0.0.0). */
class AdvertisedAddressTest {
    @Test
    void aConfiguredAddressWinsThenASpecificBindAddress() {
        assertThat(AdvertisedAddress.of("mrc.example", "0.0.0.0")).isEqualTo("mrc.example");
        assertThat(AdvertisedAddress.of("", "192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(AdvertisedAddress.of("", "127.0.0.1")).isEqualTo("127.0.0.1");
    }

    @Test
    void aServerBoundToEveryInterfaceRegistersAnAddressOfThisHostThatIsNotLoopback() throws Exception {
        boolean hostHasOtherAddresses = NetworkInterface.networkInterfaces()
                .anyMatch(networkInterface -> !isLoopback(networkInterface) && networkInterface.inetAddresses()
                        .anyMatch(address -> address instanceof java.net.Inet4Address
                                && !address.isLoopbackAddress() && !address.isLinkLocalAddress()));
        for (String wildcard : new String[] {"0.0.0.0", "::"}) {
            String advertised = AdvertisedAddress.of("", wildcard);
            InetAddress address = InetAddress.getByName(advertised);
            assertThat(NetworkInterface.getByInetAddress(address)).as(advertised + " is an address of this host")
                    .isNotNull();
            assertThat(address.isLoopbackAddress()).as(advertised).isEqualTo(!hostHasOtherAddresses);
        }
    }

    private static boolean isLoopback(NetworkInterface networkInterface) {
        try {
            return networkInterface.isLoopback() || !networkInterface.isUp();
        } catch (java.net.SocketException e) {
            return true;
        }
    }
}
