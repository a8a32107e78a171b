package org.xtreemfs.foundation.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.HostPort;

class ReadyAnnouncementTest {

    // The line carries both bound addresses; IPv6 literals are bracketed so host:port stays parseable.
    @Test
    void theLineNamesBothBoundAddressesAndBracketsIpv6() {
        InetSocketAddress rpc = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
        InetSocketAddress status = new InetSocketAddress(InetAddress.getLoopbackAddress(), 3);
        assertThat(ReadyAnnouncement.of("dir", rpc, status).line()).isEqualTo("READY dir 127.0.0.1:1 status 127.0.0.1:3");
        assertThat(ReadyAnnouncement.of("mrc", new InetSocketAddress("::1", 2), new InetSocketAddress("::1", 4)).line())
                .isEqualTo("READY mrc [0:0:0:0:0:0:0:1]:2 status [0:0:0:0:0:0:0:1]:4");
    }

    // parse reads exactly what line writes, IPv6 included.
    @Test
    void parseReadsWhatLineWrites() {
        for (ReadyAnnouncement announcement : new ReadyAnnouncement[] {
                new ReadyAnnouncement("osd", new HostPort("127.0.0.1", 40123), new HostPort("0.0.0.0", 40124)),
                new ReadyAnnouncement("mrc", new HostPort("::1", 2), new HostPort("fe80::1", 65535))}) {
            assertThat(ReadyAnnouncement.parse(announcement.line())).contains(announcement);
        }
    }

    // Other output is no announcement; a READY line that is not a whole announcement is an error naming it.
    @Test
    void otherLinesAreNoneAndMalformedOnesAreNamed() {
        assertThat(ReadyAnnouncement.parse("INFO osd started")).isEmpty();
        assertThat(ReadyAnnouncement.parse("")).isEmpty();
        for (String bad : new String[] {"READY osd 127.0.0.1:40123", "READY osd 127.0.0.1:40123 status",
                "READY osd 127.0.0.1:40123 web 127.0.0.1:1", "READY osd 127.0.0.1:x status 127.0.0.1:1",
                "READY osd 127.0.0.1:1 status 127.0.0.1:70000"}) {
            assertThatThrownBy(() -> ReadyAnnouncement.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
        }
    }

    // In a log: the service's own whole line is found among others; a line still being written (no newline yet)
    // is not read, so "status 127.0.0.1:401" of a port 40123 being written never becomes port 401.
    @Test
    void findReadsOnlyWholeLinesOfTheService() {
        String log = "INFO starting\nREADY dir 127.0.0.1:1 status 127.0.0.1:2\n";
        assertThat(ReadyAnnouncement.find("osd", log)).isEmpty();
        String whole = log + "READY osd 127.0.0.1:40122 status 127.0.0.1:40123\nINFO serving\n";
        assertThat(ReadyAnnouncement.find("osd", whole).orElseThrow().status().port()).isEqualTo(40123);
        assertThat(ReadyAnnouncement.find("osd", log + "READY osd 127.0.0.1:40122 status 127.0.0.1:401")).isEmpty();
        assertThat(ReadyAnnouncement.find("osd", log + "READY osd 127.0.0.1:40122 status 127.0.0.1:40123\n"))
                .map(ReadyAnnouncement::status).contains(new HostPort("127.0.0.1", 40123));
        assertThat(ReadyAnnouncement.find("osd", "")).isEmpty();
    }
}
