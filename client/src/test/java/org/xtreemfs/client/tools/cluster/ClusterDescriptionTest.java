package org.xtreemfs.client.tools.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.tools.ToolRunner;

class ClusterDescriptionTest {

    @Test
    void shortKeysBecomeOsdSettingsAndDottedKeysPassThrough() {
        OsdDescription osd = OsdDescription.parse(
                "name=seq,usage=sequential,device=hdd,emulation=hdd7200,osd.locks.leaseMs=6000", "osd0");
        assertThat(osd.name()).isEqualTo("seq");
        assertThat(osd.settings()).containsExactlyInAnyOrderEntriesOf(Map.of("osd.usage.type", "sequential",
                "osd.device.class", "hdd", "osd.device.emulation", "hdd7200", "osd.locks.leaseMs", "6000"));
        assertThat(osd.summary()).isEqualTo("sequential hdd (emulated hdd7200)");
    }

    @Test
    void anEmptySpecIsADefaultOsdWithTheDefaultName() {
        OsdDescription osd = OsdDescription.parse("", "osd3");
        assertThat(osd.name()).isEqualTo("osd3");
        assertThat(osd.settings()).isEmpty();
    }

    @Test
    void badSpecsNameTheBadPart() {
        assertThatThrownBy(() -> OsdDescription.parse("usage=random,colour=blue", "osd0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown key 'colour'");
        assertThatThrownBy(() -> OsdDescription.parse("usage", "osd0"))
                .hasMessageContaining("'usage' is not key=value");
        assertThatThrownBy(() -> OsdDescription.parse("name=../etc", "osd0")).hasMessageContaining("'../etc'");
        assertThatThrownBy(() -> OsdDescription.parse("name=mrc", "osd0")).hasMessageContaining("'mrc'");
    }

    @Test
    void twoOsdsWithOneNameAreRefused() {
        OsdDescription a = new OsdDescription("a", Map.of());
        assertThatThrownBy(() -> new ClusterDescription(List.of(a, a), Map.of(), Map.of(), false))
                .hasMessageContaining("two OSDs are named 'a'");
    }

    // A mixed cluster: named servers keep plain ports in a TLS cluster; unknown names, plain servers without TLS and
    // plain servers where client certificates are required (they have none to present) are refused.
    @Test
    void plainServersOfAMixedClusterAreNamedServersOfATlsCluster() {
        List<OsdDescription> osds = List.of(new OsdDescription("osd0", Map.of()), new OsdDescription("osd1", Map.of()));
        ClusterDescription mixed = new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.ON,
                Map.of(), Set.of("mrc", "osd1"));
        assertThat(List.of("dir", "mrc", "osd0", "osd1").stream().filter(mixed::tlsPort).toList())
                .containsExactly("dir", "osd0");
        assertThatThrownBy(() -> new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.ON,
                Map.of(), Set.of("osd7"))).hasMessageContaining("'osd7'");
        assertThatThrownBy(() -> new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.OFF,
                Map.of(), Set.of("mrc"))).hasMessageContaining("no TLS");
        assertThatThrownBy(() -> new ClusterDescription(osds, Map.of(), Map.of(), false,
                ClusterDescription.Tls.CLIENT_CERTIFICATES, Map.of(), Set.of("mrc")))
                .hasMessageContaining("client certificates");
        assertThat(new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.OFF).tlsPort("dir"))
                .isFalse();
    }

    @Test
    void networkHostsAreGivenForEveryServerOrForNone() {
        List<OsdDescription> osds = List.of(new OsdDescription("osd0", Map.of()));
        Map<String, NetworkHost> every = Map.of("dir", NetworkHost.parse("h-dir@10.77.0.1"),
                "mrc", NetworkHost.parse("h-mrc@10.77.0.2"), "osd0", NetworkHost.parse("h-osd0@10.77.0.10"));
        assertThat(new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.OFF, every).hosts())
                .isEqualTo(every);
        assertThatThrownBy(() -> new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.OFF,
                Map.of("dir", NetworkHost.parse("h-dir@10.77.0.1"))))
                .hasMessageContaining("not for mrc, osd0");
        assertThatThrownBy(() -> new ClusterDescription(osds, Map.of(), Map.of(), false, ClusterDescription.Tls.OFF,
                Map.of("osd7", NetworkHost.parse("h@10.77.0.1")))).hasMessageContaining("'osd7'");
    }

    @Test
    void aNetworkHostIsANamespaceAndAnIpv4Address() {
        assertThat(NetworkHost.parse("xt-c2@10.77.0.22")).isEqualTo(new NetworkHost("xt-c2", "10.77.0.22"));
        assertThatThrownBy(() -> NetworkHost.parse("xt-c2")).hasMessageContaining("NAMESPACE@ADDRESS");
        assertThatThrownBy(() -> NetworkHost.parse("../etc@10.0.0.1")).hasMessageContaining("'../etc'");
        assertThatThrownBy(() -> NetworkHost.parse("xt@10.0.0.256")).hasMessageContaining("'10.0.0.256'");
        assertThatThrownBy(() -> NetworkHost.parse("xt@host.example")).hasMessageContaining("IPv4");
    }

    @Test
    void aServerOnAHostOfItsOwnBindsEveryInterfaceAndAdvertisesWhatItsHostHas() {
        Path state = Path.of("/tmp/state");
        Map<String, String> own = ClusterLayout.defaults(ServerKind.OSD, state, "osd0", "u", "10.77.0.1:1", "s", true);
        assertThat(own).containsEntry("osd.bindAddress", "0.0.0.0").doesNotContainKey("osd.advertisedAddress");
        Map<String, String> loopback = ClusterLayout.defaults(ServerKind.MRC, state, "mrc", "u", "127.0.0.1:1", "s",
                false);
        assertThat(loopback).containsEntry("mrc.bindAddress", "127.0.0.1")
                .containsEntry("mrc.advertisedAddress", "127.0.0.1");
        assertThat(ClusterLayout.defaults(ServerKind.DIR, state, "dir", "", "", "s", true))
                .containsEntry("dir.bindAddress", "0.0.0.0");
    }

    // The launcher picks no port itself: RPC and status page both start on port 0 and the server announces what it
    // bound (a port picked by opening and closing a socket could be taken by another process before the server
    // binds it, as a status port once was in CI).
    @Test
    void everyServerStartsOnPortZeroForRpcAndStatus() {
        for (ServerKind kind : ServerKind.values()) {
            assertThat(ClusterLayout.defaults(kind, Path.of("/tmp/state"), "x", "u", "127.0.0.1:1", "s", false))
                    .as(kind.name()).containsEntry(kind.portKey(), "0").containsEntry(kind.statusPortKey(), "0");
        }
    }

    @Test
    void aServerInAMissingNetworkNamespaceIsNotStartedAndTheNamespaceIsNamed() {
        ServerSpec spec = new ServerSpec("osd0", ServerKind.OSD, Map.of(), Path.of("/nonexistent-state/log/osd0.log"),
                "xtreemfs-test-no-such-namespace");
        assertThatThrownBy(() -> ProcessRunner.scripts(Path.of("/nonexistent-repository"), "").start(spec))
                .isInstanceOf(IOException.class).hasMessageContaining("xtreemfs-test-no-such-namespace")
                .hasMessageContaining("ip netns add");
    }

    @Test
    void theCliRefusesBadValuesWithExitTwoAndNamesThem() {
        StringWriter err = new StringWriter();
        int exit = ToolRunner.execute(new ClusterMain(), new PrintWriter(new StringWriter()), new PrintWriter(err),
                "kill", "--state", "/nonexistent", "osd0", "--signal", "SEGV");
        assertThat(exit).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(err.toString()).contains("'SEGV'");
    }

    @Test
    void theCliReportsAMissingClusterAsAFailureNotAStackTrace() {
        StringWriter err = new StringWriter();
        int exit = ToolRunner.execute(new ClusterMain(), new PrintWriter(new StringWriter()), new PrintWriter(err),
                "status", "--state", "/nonexistent-cluster-folder");
        assertThat(exit).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(err.toString()).contains("no cluster in /nonexistent-cluster-folder").doesNotContain("Exception");
    }
}
