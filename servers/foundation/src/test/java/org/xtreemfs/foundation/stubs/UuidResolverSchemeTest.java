package org.xtreemfs.foundation.stubs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;

/** UUID resolution carries the scheme a server registered, so clients speak TLS or plain TCP per server. */
class UuidResolverSchemeTest {
    private static AddressMapping mapping(String protocol, int port) {
        return AddressMapping.newBuilder().setUuid("osd-1").setProtocol(protocol).setAddress("127.0.0.1")
                .setPort(port).build();
    }

    @Test
    void theFirstMappingOfASchemeThisTransportSpeaksIsTakenWithItsScheme() {
        ServiceAddress tls = UuidResolver.rpcAddress("osd-1", AddressMappingSet.newBuilder()
                .addMappings(mapping("http", 1)).addMappings(mapping("pbrpcs", 2)).addMappings(mapping("pbrpc", 3))
                .build());
        assertThat(tls.scheme()).isEqualTo(RpcScheme.PBRPCS);
        assertThat(tls.getPort()).isEqualTo(2);
        ServiceAddress unnamed = UuidResolver.rpcAddress("osd-1",
                AddressMappingSet.newBuilder().addMappings(mapping("", 4)).build());
        assertThat(unnamed.scheme()).isEqualTo(RpcScheme.PBRPC);
    }

    @Test
    void aUuidWithoutAnRpcMappingIsNamedWithTheProtocolsItHas() {
        assertThatThrownBy(() -> UuidResolver.rpcAddress("osd-1", AddressMappingSet.newBuilder()
                .addMappings(mapping("pbrpcg", 1)).build())).isInstanceOf(CompletionException.class)
                .hasMessageContaining("'osd-1'").hasMessageContaining("[pbrpcg]");
        assertThatThrownBy(() -> UuidResolver.rpcAddress("osd-2", AddressMappingSet.getDefaultInstance()))
                .hasMessageContaining("no address known for service UUID 'osd-2'");
    }
}
