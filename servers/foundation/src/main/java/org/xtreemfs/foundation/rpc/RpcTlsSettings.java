package org.xtreemfs.foundation.rpc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingTypes;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsSchema;

/**
 * The TLS settings of one server, declared once under its key prefix ({@code dir.tls.*}, {@code mrc.tls.*},
 * {@code osd.tls.*}); add {@link #schema()} to the service schema. The RPC port speaks TLS only when a certificate is
 * set (a plain client is answered AUTH_FAILED saying so); the server then registers as pbrpcs at the DIR. The
 * server's own calls to other servers (the DIR, the MRC, other OSDs) speak to each server by the scheme it
 * registered; for TLS ones they trust {@code tls.authorityFile} and present the certificate, if set, as a client
 * certificate. So a plain server of a mixed cluster sets only {@code tls.authorityFile} (it then reaches TLS servers
 * that do not require client certificates).
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
                "PEM certificate(s) of the CA this server trusts: for the TLS servers it calls, and for client"
                        + " certificates when tls.requireClientCertificate is on. Needed with tls.certificateFile;"
                        + " alone, the RPC port stays plain and only calls to TLS (pbrpcs) servers use it.");
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
        return certificateSet(settings.get(certificateFile));
    }

    /** The scheme of the server's RPC port: pbrpcs when a certificate is set. */
    public RpcScheme scheme(Settings settings) {
        return RpcScheme.forTls(enabled(settings));
    }

    /**
     * The same scheme from a server's settings as text (key to value), as a launcher holds them before the server
     * parses them: the rule stays here, not in the launcher.
     */
    public RpcScheme scheme(Map<String, String> settingsText) {
        return RpcScheme.forTls(certificateSet(settingsText.getOrDefault(certificateFile.key(), "")));
    }

    private static boolean certificateSet(String certificateFile) {
        return !certificateFile.isEmpty();
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

    /**
     * The TLS of this server's own calls to TLS servers, when a CA is set: trusts the CA and presents the server's
     * certificate when it has one.
     */
    public Optional<RpcTls> client(Settings settings) {
        if (!enabled(settings)) {
            if (settings.get(authorityFile).isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(RpcTls.client(Path.of(settings.get(authorityFile)), Optional.empty(),
                        Optional.empty()));
            } catch (IOException e) {
                throw new IllegalArgumentException(keyPrefix + ".tls: " + e.getMessage(), e);
            }
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
