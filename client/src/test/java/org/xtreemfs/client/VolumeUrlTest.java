package org.xtreemfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VolumeUrlTest {
    // A bare host/volume gets the pbrpc scheme and the default DIR port.
    @Test
    void defaultsSchemeAndPort() {
        VolumeUrl url = VolumeUrl.parse("localhost/analytics");
        assertThat(url).isEqualTo(new VolumeUrl("localhost", 32638, "analytics", "/"));
        assertThat(url.toString()).isEqualTo("pbrpc://localhost:32638/analytics");
    }

    // Scheme, port and a path inside the volume are all recognised; the path is normalised.
    @Test
    void parsesFullUrlWithPath() {
        VolumeUrl url = VolumeUrl.parse("pbrpc://dir.example.org:1234/db/a//b/./c/");
        assertThat(url).isEqualTo(new VolumeUrl("dir.example.org", 1234, "db", "/a/b/c", Optional.of(RpcScheme.PBRPC)));
    }

    // pbrpcs:// says the DIR speaks TLS: the DIR's address carries it; without a scheme the client's default applies.
    @Test
    void theSchemeIsKeptAndReachesTheDirAddress() {
        VolumeUrl tls = VolumeUrl.parse("PBRPCS://127.0.0.1:1234/db/f");
        assertThat(tls.scheme()).contains(RpcScheme.PBRPCS);
        assertThat(tls.toString()).isEqualTo("pbrpcs://127.0.0.1:1234/db/f");
        assertThat(tls.withPath("/g").toString()).isEqualTo("pbrpcs://127.0.0.1:1234/db/g");
        assertThat(tls.dirAddress()).isInstanceOfSatisfying(ServiceAddress.class,
                address -> assertThat(address.scheme()).isEqualTo(RpcScheme.PBRPCS));
        assertThat(VolumeUrl.parse("127.0.0.1:1234/db").dirAddress()).isNotInstanceOf(ServiceAddress.class);
        assertThatThrownBy(() -> VolumeUrl.parse("pbrpcg://h/v")).hasMessageContaining("'pbrpcg://h/v'")
                .hasMessageContaining("not supported");
        assertThatThrownBy(() -> VolumeUrl.parse("http://h/v")).hasMessageContaining("unknown scheme 'http'");
    }

    // IPv6 literals are written in brackets.
    @Test
    void parsesIpv6() {
        VolumeUrl url = VolumeUrl.parse("[::1]:40000/vol");
        assertThat(url.host()).isEqualTo("::1");
        assertThat(url.port()).isEqualTo(40000);
        assertThat(url.toString()).isEqualTo("pbrpc://[::1]:40000/vol");
    }

    // A DIR URL must not name a volume; a volume URL must.
    @Test
    void directoryServiceUrlsAndVolumeUrlsAreDistinguished() {
        assertThat(VolumeUrl.parseDirectoryService("localhost:9").volumeName()).isEmpty();
        assertThat(VolumeUrl.parseDirectoryService("pbrpc://localhost/").port()).isEqualTo(32638);
        assertThatThrownBy(() -> VolumeUrl.parseDirectoryService("localhost/vol"))
                .hasMessageContaining("'localhost/vol'").hasMessageContaining("vol");
        assertThatThrownBy(() -> VolumeUrl.parse("localhost"))
                .hasMessageContaining("'localhost'").hasMessageContaining("names no volume");
    }

    // Every malformed URL is refused with a message quoting the whole URL.
    @ParameterizedTest
    @ValueSource(strings = {"http://localhost/vol", "localhost:0/vol", "localhost:70000/vol", "localhost:abc/vol",
            ":123/vol", "bad_host!/vol", "localhost/-vol", "localhost/v@l", "localhost/vol/../..", "[::1/vol"})
    void refusesMalformedUrls(String bad) {
        assertThatThrownBy(() -> VolumeUrl.parse(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + bad + "'");
    }

    // Volume names outside the allowed alphabet are refused, naming the name.
    @Test
    void validatesVolumeNames() {
        assertThat(VolumeUrl.requireValidVolumeName("my-vol_1.0")).isEqualTo("my-vol_1.0");
        assertThatThrownBy(() -> VolumeUrl.requireValidVolumeName("a/b")).hasMessageContaining("'a/b'");
        assertThatThrownBy(() -> VolumeUrl.requireValidVolumeName("")).hasMessageContaining("''");
        assertThatThrownBy(() -> VolumeUrl.requireValidVolumeName("x".repeat(129))).hasMessageContaining("invalid");
    }
}
