package org.xtreemfs.foundation.rpc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingTypes;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

/**
 * The TLS settings of one server, declared once under its key prefix ({@code dir.tls.*}, {@code mrc.tls.*},
 * {@code osd.tls.*}); add {@link #schema()} to the service schema. TLS is off unless a certificate is set; with it
 * the server's RPC port speaks TLS only (a plain client is answered AUTH_FAILED saying so), and the server's own
 * calls to other servers (heartbeats and registrations at the DIR, the MRC's calls to the DIR) speak TLS too,
 * trusting {@code tls.authorityFile} and presenting the same certificate as a client certificate. So within one
 * cluster either every server has TLS or none has: a client speaks one or the other to all servers.
 */
public final class RpcTlsSettings {
    private final String keyPrefix;
    private final Setting<String> certificateFile;
    private final Setting<String> privateKeyFile;
    private final Setting<String> authorityFile;
    private final Setting<Boolean> requireClientCertificate;

    /** @param keyPrefix the service prefix, e.g. {@code mrc} */
    public RpcTlsSettings(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        certificateFile = optionalFile(keyPrefix + ".tls.certificateFile",
                "PEM certificate chain of this server; set, the RPC port speaks TLS only (empty: plain TCP). Its"
                        + " subject alternative names must hold every host name or IP address others connect to.");
        privateKeyFile = optionalFile(keyPrefix + ".tls.privateKeyFile",
                "PEM private key (PKCS#8, unencrypted) of tls.certificateFile; readable only by the service's user.");
        authorityFile = optionalFile(keyPrefix + ".tls.authorityFile",
                "PEM certificate(s) of the CA this server trusts: for the servers it calls, and for client"
                        + " certificates when tls.requireClientCertificate is on. Needed with tls.certificateFile.");
        requireClientCertificate = Setting.bool(keyPrefix + ".tls.requireClientCertificate", false,
                "Refuse TLS clients that present no certificate signed by tls.authorityFile.");
    }

    private static Setting<String> optionalFile(String key, String description) {
        return new Setting<>(key, SettingTypes.string(true), "", description);
    }

    public SettingsSchema schema() {
        return SettingsSchema.of("tls", certificateFile, privateKeyFile, authorityFile, requireClientCertificate);
    }

    /** Whether the settings turn TLS on (a certificate is set). */
    public boolean enabled(Settings settings) {
        return !settings.get(certificateFile).isEmpty();
    }

    public boolean requireClientCertificate(Settings settings) {
        return enabled(settings) && settings.get(requireClientCertificate);
    }

    /**
     * The server side, when enabled.
     *
     * @throws IllegalArgumentException naming the setting that is missing or whose file is unusable
     */
    public Optional<RpcTls> server(Settings settings) {
        if (!enabled(settings)) {
            requireUnset(settings, privateKeyFile);
            requireUnset(settings, authorityFile);
            if (settings.get(requireClientCertificate)) {
                throw new IllegalArgumentException(requireClientCertificate.key() + " is on but "
                        + certificateFile.key() + " is not set (client certificates need TLS)");
            }
            return Optional.empty();
        }
        requireSet(settings, privateKeyFile);
        requireSet(settings, authorityFile);
        Optional<Path> clientAuthority = settings.get(requireClientCertificate)
                ? Optional.of(Path.of(settings.get(authorityFile))) : Optional.empty();
        try {
            return Optional.of(RpcTls.server(Path.of(settings.get(certificateFile)),
                    Path.of(settings.get(privateKeyFile)), clientAuthority));
        } catch (IOException e) {
            throw new IllegalArgumentException(keyPrefix + ".tls: " + e.getMessage(), e);
        }
    }

    /** The side of this server's own calls to other servers, when enabled: trusts the CA, presents its certificate. */
    public Optional<RpcTls> client(Settings settings) {
        if (!enabled(settings)) {
            return Optional.empty();
        }
        requireSet(settings, privateKeyFile);
        requireSet(settings, authorityFile);
        try {
            return Optional.of(RpcTls.client(Path.of(settings.get(authorityFile)),
                    Optional.of(Path.of(settings.get(certificateFile))), Optional.of(Path.of(settings.get(privateKeyFile)))));
        } catch (IOException e) {
            throw new IllegalArgumentException(keyPrefix + ".tls: " + e.getMessage(), e);
        }
    }

    private void requireSet(Settings settings, Setting<String> setting) {
        if (settings.get(setting).isEmpty()) {
            throw new IllegalArgumentException(certificateFile.key() + " is set but " + setting.key()
                    + " is not; TLS needs the certificate, its private key and the CA");
        }
    }

    private void requireUnset(Settings settings, Setting<String> setting) {
        if (!settings.get(setting).isEmpty()) {
            throw new IllegalArgumentException(setting.key() + " is set but " + certificateFile.key()
                    + " is not; set the certificate too to turn TLS on, or remove " + setting.key());
        }
    }
}
