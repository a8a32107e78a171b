package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.config.HostPort;

/** The scheme names (XtreemFS's pbrpc, pbrpcs; pbrpcg refused by name) and the URLs and addresses that carry them. */
class RpcSchemeTest {

    @Test
    void namesParseBothWaysCaseInsensitively() {
        for (RpcScheme scheme : RpcScheme.values()) {
            assertThat(RpcScheme.parse(scheme.schemeName())).isEqualTo(scheme);
        }
        assertThat(RpcScheme.parse("PBRPCS")).isEqualTo(RpcScheme.PBRPCS);
        assertThat(RpcScheme.PBRPCS.tls()).isTrue();
        assertThat(RpcScheme.PBRPC.tls()).isFalse();
        assertThat(RpcScheme.forTls(true)).isEqualTo(RpcScheme.PBRPCS);
        assertThat(RpcScheme.forTls(false)).isEqualTo(RpcScheme.PBRPC);
    }

    @Test
    void unknownAndGridSslSchemesAreRefusedByName() {
        assertThatThrownBy(() -> RpcScheme.parse("http")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'http'").hasMessageContaining("pbrpc (plain) or pbrpcs (TLS)");
        assertThatThrownBy(() -> RpcScheme.parse("pbrpcg")).hasMessageContaining("'pbrpcg'")
                .hasMessageContaining("not supported");
        assertThatThrownBy(() -> RpcScheme.split("pbrpcx://h:1")).hasMessageContaining("'pbrpcx'");
    }

    // A DIR mapping without a protocol is pbrpc (as the DIR stores it); others than pbrpc/pbrpcs are not RPC ports.
    @Test
    void mappingProtocols() {
        assertThat(RpcScheme.ofMapping("")).contains(RpcScheme.PBRPC);
        assertThat(RpcScheme.ofMapping("pbrpc")).contains(RpcScheme.PBRPC);
        assertThat(RpcScheme.ofMapping("pbrpcs")).contains(RpcScheme.PBRPCS);
        assertThat(RpcScheme.ofMapping("pbrpcg")).isEmpty();
        assertThat(RpcScheme.ofMapping("http")).isEmpty();
    }

    @Test
    void splitKeepsTheRestAndReportsAMissingScheme() {
        assertThat(RpcScheme.split("pbrpcs://dir:1/v")).isEqualTo(new RpcScheme.Split(Optional.of(RpcScheme.PBRPCS),
                "dir:1/v"));
        assertThat(RpcScheme.split("dir:1/v")).isEqualTo(new RpcScheme.Split(Optional.empty(), "dir:1/v"));
    }

    @Test
    void rpcUrlsCarryAGivenSchemeToTheAddress() {
        RpcUrl tls = RpcUrl.parse("pbrpcs://127.0.0.1:4000");
        assertThat(tls).isEqualTo(new RpcUrl(Optional.of(RpcScheme.PBRPCS), new HostPort("127.0.0.1", 4000)));
        assertThat(tls.toString()).isEqualTo("pbrpcs://127.0.0.1:4000");
        ServiceAddress address = tls.socketAddress(RpcScheme.PBRPC);
        assertThat(address.scheme()).as("the given scheme, not the default").isEqualTo(RpcScheme.PBRPCS);
        assertThat(address.toString()).isEqualTo("pbrpcs://127.0.0.1:4000");

        RpcUrl bare = RpcUrl.parse("[::1]:4001");
        assertThat(bare.scheme()).isEmpty();
        assertThat(bare.toString()).isEqualTo("[::1]:4001");
        assertThat(bare.socketAddress(RpcScheme.PBRPCS).scheme()).as("the default").isEqualTo(RpcScheme.PBRPCS);
        assertThat(RpcUrl.SETTING_TYPE.parse(RpcUrl.SETTING_TYPE.format(tls))).isEqualTo(tls);
        assertThatThrownBy(() -> RpcUrl.parse("pbrpcs://nohost")).hasMessageContaining("host:port");
    }

    // A client speaks an address's own scheme, and its default (TLS when it has a TLS configuration) to bare ones.
    @Test
    void theClientsSchemeOfAnAddress() {
        try (RpcClient plain = new RpcClient("scheme-test")) {
            assertThat(plain.schemeOf(new InetSocketAddress("127.0.0.1", 1))).isEqualTo(RpcScheme.PBRPC);
            assertThat(plain.schemeOf(new ServiceAddress(RpcScheme.PBRPCS, "127.0.0.1", 1)))
                    .isEqualTo(RpcScheme.PBRPCS);
        }
    }
}
