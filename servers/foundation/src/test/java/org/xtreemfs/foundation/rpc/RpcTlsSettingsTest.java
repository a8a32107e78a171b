package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

/** A server's TLS settings: off unless a certificate is set; half a configuration is refused naming the key. */
class RpcTlsSettingsTest {
    private static final RpcTlsSettings TLS = new RpcTlsSettings("svc");

    private static Settings settings(Map<String, String> values) throws Exception {
        Properties properties = new Properties();
        properties.putAll(values);
        return SettingsSchema.of("svc", java.util.List.of()).plus(TLS.schema()).validate(properties);
    }

    @Test
    void withoutACertificateTheServerSpeaksPlainTcp() throws Exception {
        Settings none = settings(Map.of());
        assertThat(TLS.enabled(none)).isFalse();
        assertThat(TLS.server(none)).isEmpty();
        assertThat(TLS.client(none)).isEmpty();
    }

    @Test
    void halfAConfigurationIsRefusedNamingWhatIsMissing() throws Exception {
        assertThatThrownBy(() -> TLS.server(settings(Map.of("svc.tls.certificateFile", "/x/cert.pem"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("svc.tls.privateKeyFile");
        assertThatThrownBy(() -> TLS.server(settings(Map.of("svc.tls.certificateFile", "/x/cert.pem",
                "svc.tls.privateKeyFile", "/x/key.pem")))).hasMessageContaining("svc.tls.authorityFile");
        assertThatThrownBy(() -> TLS.server(settings(Map.of("svc.tls.privateKeyFile", "/x/key.pem"))))
                .hasMessageContaining("svc.tls.privateKeyFile is set but svc.tls.certificateFile is not");
        assertThatThrownBy(() -> TLS.server(settings(Map.of("svc.tls.requireClientCertificate", "true"))))
                .hasMessageContaining("svc.tls.requireClientCertificate");
    }

    // A plain server of a mixed cluster: the CA alone keeps the port plain and is used for calls to TLS servers.
    @Test
    void theAuthorityAloneKeepsThePortPlainAndServesOutgoingCalls() throws Exception {
        Settings authorityOnly = settings(Map.of("svc.tls.authorityFile", "/nonexistent/ca.pem"));
        assertThat(TLS.enabled(authorityOnly)).isFalse();
        assertThat(TLS.server(authorityOnly)).isEmpty();
        assertThatThrownBy(() -> TLS.client(authorityOnly)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("svc.tls").hasMessageContaining("/nonexistent/ca.pem");
    }

    @Test
    void aMissingFileIsNamed() {
        assertThatThrownBy(() -> TLS.server(settings(Map.of("svc.tls.certificateFile", "/nonexistent/cert.pem",
                "svc.tls.privateKeyFile", "/nonexistent/key.pem", "svc.tls.authorityFile", "/nonexistent/ca.pem"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/nonexistent/cert.pem");
    }
}
