package org.xtreemfs.client.tools;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.foundation.rpc.RpcTls;
import picocli.CommandLine.Option;

/** Options every tool that talks to the servers shares (a picocli mixin). */
public final class ConnectionOptions {
    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "15000",
            description = "Deadline of each request in milliseconds (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "100",
            description = "At most N attempts per request after no answer or an overloaded server, the first"
                    + " included (default: ${DEFAULT-VALUE}, i.e. the window decides).")
    int retryAttemptsMax;

    @Option(names = "--retry-window-ms", paramLabel = "MS", defaultValue = "60000",
            description = "Attempts of a request start within MS of the first, so a server restart shorter than"
                    + " that is only a pause; changes are applied once by the MRC however often they are sent"
                    + " (default: ${DEFAULT-VALUE}; 0: no retries).")
    long retryWindowMs;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "Trust the CA certificate(s) in FILE (PEM) for the servers that speak TLS: those registered"
                    + " as pbrpcs at the DIR (their *.tls.certificateFile is set), and the DIR when its URL says"
                    + " pbrpcs:// or gives no scheme; pbrpc servers are still spoken to plainly. Their certificates"
                    + " must name the addresses connected to.")
    Path tlsAuthority;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "With --tls-ca: present this client certificate (PEM chain), for servers that require one"
                    + " (*.tls.requireClientCertificate); an MRC with mrc.identity.fromCertificate takes the user from it.")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The private key (PEM, PKCS#8) of --tls-cert.")
    Path tlsKey;

    /** The TLS these options ask for, or null for plain TCP. */
    RpcTls tls() {
        if (tlsAuthority == null) {
            if (tlsCertificate != null || tlsKey != null) {
                throw new IllegalArgumentException("--tls-cert and --tls-key need --tls-ca (the CA to trust)");
            }
            return null;
        }
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        try {
            return RpcTls.client(tlsAuthority, Optional.ofNullable(tlsCertificate), Optional.ofNullable(tlsKey));
        } catch (IOException e) {
            throw new IllegalArgumentException("--tls-ca/--tls-cert/--tls-key: " + e.getMessage(), e);
        }
    }

    /** A client for the DIR the URL names, acting as the user running the tool. */
    Client connect(VolumeUrl url) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("--timeout-ms: '" + timeoutMs + "' must be positive");
        }
        if (retryAttemptsMax < 1 || retryAttemptsMax > 100) {
            throw new IllegalArgumentException("--retries: '" + retryAttemptsMax + "' must be in 1..100");
        }
        if (retryWindowMs < 0) {
            throw new IllegalArgumentException("--retry-window-ms: '" + retryWindowMs + "' must not be negative");
        }
        ClientOptions options = ClientOptions.builder()
                .requestTimeoutMs(timeoutMs)
                .connectTimeoutMs((int) Math.min(timeoutMs, 5_000))
                .retryAttemptsMax(retryAttemptsMax)
                .retryWindowMs(retryWindowMs)
                .metadataCacheTtlMs(0)
                .tls(tls())
                .build();
        return Client.connect(url.dirAddress(), options);
    }
}
